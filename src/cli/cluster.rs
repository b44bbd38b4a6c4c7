//! `advmath cluster scheduler|executor`: the processes of a Ballista cluster (the `cluster`
//! feature).

use std::path::PathBuf;

use clap::Subcommand;

#[derive(Subcommand, Debug)]
pub enum ClusterCommand {
    /// The scheduler: plans each query into stages and hands their tasks to the executors.
    Scheduler {
        /// Address to listen on (clients connect with --cluster df://<this address>).
        #[arg(long, default_value = "127.0.0.1:50050")]
        bind: std::net::SocketAddr,
        /// Seconds without news after which an executor is taken for dead and its tasks are run
        /// on the others.
        #[arg(long, default_value_t = 30)]
        executor_timeout: u64,
    },
    /// An executor: runs tasks, reads the tables' files, serves shuffle data to the others.
    Executor {
        /// The scheduler's address.
        #[arg(long, default_value = "127.0.0.1:50050")]
        scheduler: std::net::SocketAddr,
        /// Host to listen on and to advertise to the scheduler.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Arrow Flight port (shuffle data); the task port is the next one.
        #[arg(long, default_value_t = 50051)]
        port: u16,
        /// Tasks run at once (default: the cores).
        #[arg(long)]
        slots: Option<usize>,
        /// Folder for shuffle files (default: a temporary folder).
        #[arg(long)]
        work_dir: Option<PathBuf>,
        /// Memory for the operators (e.g. 4GiB; default: 70% of the machine).
        #[arg(long, value_parser = advmath::metrics::parse_size)]
        memory: Option<usize>,
        /// Seconds between heartbeats to the scheduler.
        #[arg(long, default_value_t = 5)]
        heartbeat: u64,
    },
}
