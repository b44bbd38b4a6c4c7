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
        /// Seconds without a heartbeat after which an executor is taken for dead and its tasks
        /// are run on the others (checked every third of it). Longer than the executors'
        /// --heartbeat, so that a busy executor is not taken for dead.
        #[arg(long, default_value_t = advmath::cluster::EXECUTOR_TIMEOUT.as_secs())]
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
        /// Memory the operators of the executor's tasks may hold in all, shared among its slots
        /// (e.g. 4GiB); past it aggregations and sorts spill to the work folder. Default: half
        /// the machine; give each its share when several executors share a machine.
        #[arg(long, alias = "memory", value_parser = super::size)]
        memory_limit: Option<usize>,
        /// Seconds between heartbeats to the scheduler.
        #[arg(long, default_value_t = advmath::cluster::HEARTBEAT.as_secs())]
        heartbeat: u64,
    },
}

pub fn run(process: ClusterCommand) -> anyhow::Result<()> {
    match process {
        ClusterCommand::Scheduler {
            bind,
            executor_timeout,
        } => advmath::cluster::run_scheduler(&advmath::cluster::SchedulerOptions {
            bind,
            executor_timeout: std::time::Duration::from_secs(executor_timeout),
        })?,
        ClusterCommand::Executor {
            scheduler,
            host,
            port,
            slots,
            work_dir,
            memory_limit,
            heartbeat,
        } => advmath::cluster::run_executor(&advmath::cluster::ExecutorOptions {
            scheduler,
            host,
            flight_port: port,
            grpc_port: port
                .checked_add(1)
                .ok_or_else(|| advmath::Error::usage("--port must be below 65535"))?,
            slots,
            work_dir,
            memory: memory_limit.unwrap_or_else(advmath::metrics::default_executor_memory) as u64,
            heartbeat: std::time::Duration::from_secs(heartbeat),
        })?,
    };
    Ok(())
}
