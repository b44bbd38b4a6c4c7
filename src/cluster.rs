//! SQL on a Ballista cluster (the `cluster` feature): the scheduler and executor processes
//! (`advmath cluster scheduler|executor`), built on Ballista's own crates, and the client
//! session `metrics --cluster` and `sql --cluster` plan in.
//!
//! The client plans each query as in-process DataFusion would (the same sql/ files, views and
//! settings) and sends the plan to the scheduler, which splits it into stages and runs their
//! tasks on the executors; executors read the tables' Parquet files themselves, so every
//! executor must see the paths the client registered: one machine, a shared file system, or a
//! bucket (`s3://`), whose client every process makes from its own AWS environment on first
//! use. Scheduler, executors and client all know DataFusion's nested functions (`UNNEST`,
//! `GENERATE_SERIES`) that the metric files use.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use ballista::prelude::SessionContextExt;
use ballista_core::extension::SessionConfigExt;
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use datafusion::execution::object_store::{DefaultObjectStoreRegistry, ObjectStoreRegistry};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use object_store::ObjectStore;
use url::Url;

use crate::error::{Error, Result};

/// How often an executor tells the scheduler it is alive, by default.
pub const HEARTBEAT: Duration = Duration::from_secs(2);

/// How long the scheduler waits for an executor's heartbeat before it takes the executor for dead
/// and runs its tasks on the others, by default: five missed heartbeats. The scheduler looks every
/// third of it, so an executor's loss is acted on within 4/3 of this (13 s).
pub const EXECUTOR_TIMEOUT: Duration = Duration::from_secs(10);

/// A scheduler's settings.
#[derive(Clone, Debug)]
pub struct SchedulerOptions {
    /// Where it listens for clients and executors.
    pub bind: SocketAddr,
    /// An executor silent for this long is taken for dead and its tasks run elsewhere.
    pub executor_timeout: Duration,
}

/// An executor's settings.
#[derive(Clone, Debug)]
pub struct ExecutorOptions {
    /// The scheduler it registers with.
    pub scheduler: SocketAddr,
    /// The host it listens on (and tells the scheduler), its Arrow Flight port (shuffle data),
    /// and its gRPC port (tasks pushed by the scheduler).
    pub host: String,
    pub flight_port: u16,
    pub grpc_port: u16,
    /// Tasks it runs at once (default: its cores).
    pub slots: Option<usize>,
    /// Shuffle and spill files (default: `advmath-executor-<port>` in the temporary folder).
    pub work_dir: Option<std::path::PathBuf>,
    /// Memory for its operators in all, each task getting its slots' share.
    pub memory: u64,
    /// How often it tells the scheduler it is alive.
    pub heartbeat: Duration,
}

fn cluster_error(action: &'static str, e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::Remote {
        url: "ballista".into(),
        action,
        source: Box::new(e),
    }
}

/// Object stores by URL; an `s3://<bucket>` store is made on first use from this process's
/// environment (the scheduler lists a table's objects when it plans, the executors read them),
/// and serves the query sessions' pinned tables.
#[derive(Debug, Default)]
struct Stores(DefaultObjectStoreRegistry);

impl ObjectStoreRegistry for Stores {
    fn register_store(
        &self,
        url: &Url,
        store: Arc<dyn ObjectStore>,
    ) -> Option<Arc<dyn ObjectStore>> {
        self.0.register_store(url, store)
    }

    fn deregister_store(&self, url: &Url) -> datafusion::error::Result<Arc<dyn ObjectStore>> {
        self.0.deregister_store(url)
    }

    fn get_store(&self, url: &Url) -> datafusion::error::Result<Arc<dyn ObjectStore>> {
        let known = self.0.get_store(url);
        match (url.scheme(), url.host_str()) {
            ("s3", Some(bucket)) if known.is_err() => {
                let bucket = crate::store::location::RemoteUrl {
                    bucket: bucket.to_string(),
                    prefix: String::new(),
                };
                let store = crate::store::location::object_store(&bucket)
                    .map_err(|e| datafusion::error::DataFusionError::External(Box::new(e)))?;
                // A query session's tables are its pinned objects: `store::sessions`.
                let store: Arc<dyn ObjectStore> =
                    Arc::new(crate::store::sessions::PinnedStore::new(store));
                self.0.register_store(url, Arc::clone(&store));
                Ok(store)
            }
            _ => known,
        }
    }
}

/// A runtime whose object stores include S3 buckets, spilling to `temp` when given.
fn runtime_with_stores(temp: Option<&str>) -> datafusion::error::Result<Arc<RuntimeEnv>> {
    let mut builder =
        RuntimeEnvBuilder::new().with_object_store_registry(Arc::new(Stores::default()));
    if let Some(dir) = temp {
        builder = builder.with_temp_file_path(dir);
    }
    builder.build_arc()
}

/// Ballista's log records on stderr: warnings and errors, or every level from
/// `ADVMATH_CLUSTER_LOG=info|debug`.
struct StderrLog;

impl log::Log for StderrLog {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &log::Record) {
        if self.enabled(record.metadata()) {
            crate::progress::note!("{} {}: {}", record.level(), record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

fn start_logging() {
    static LOG: StderrLog = StderrLog;
    let level = match std::env::var("ADVMATH_CLUSTER_LOG").as_deref() {
        Ok("debug") => log::LevelFilter::Debug,
        Ok("info") => log::LevelFilter::Info,
        _ => log::LevelFilter::Warn,
    };
    if log::set_logger(&LOG).is_ok() {
        log::set_max_level(level);
    }
}

/// A tokio runtime for a Ballista process (deep plans recurse: big stacks, as Ballista's own
/// binaries use).
fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(32 << 20)
        .build()
        .map_err(Error::from)
}

/// Run a scheduler until the process is stopped.
pub fn run_scheduler(options: &SchedulerOptions) -> Result<()> {
    start_logging();
    let timeout = options.executor_timeout.as_secs().max(2);
    let config = SchedulerConfig {
        bind_host: options.bind.ip().to_string(),
        executor_timeout_seconds: timeout,
        expire_dead_executor_interval_seconds: (timeout / 3).max(1),
        no_executors_grace_period_seconds: timeout,
        ..Default::default()
    }
    .with_hostname(options.bind.ip().to_string())
    .with_port(options.bind.port())
    .with_override_session_builder(Arc::new(|config| {
        let state = ballista_core::utils::default_session_builder(config)?;
        Ok(SessionStateBuilder::new_from_existing(state)
            .with_runtime_env(runtime_with_stores(None)?)
            .build())
    }));
    let bind = options.bind;
    runtime()?.block_on(async move {
        let cluster = BallistaCluster::new_from_config(&config)
            .await
            .map_err(|e| cluster_error("start the scheduler", e))?;
        crate::progress::note!("scheduler listening on {bind} (clients: --cluster df://{bind})");
        ballista_scheduler::scheduler_process::start_server(cluster, bind, Arc::new(config))
            .await
            .map_err(|e| cluster_error("run the scheduler", e))
    })
}

/// Run an executor until the process is stopped.
pub fn run_executor(options: &ExecutorOptions) -> Result<()> {
    start_logging();
    let work_dir = options.work_dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("advmath-executor-{}", options.flight_port))
    });
    std::fs::create_dir_all(&work_dir).map_err(|e| Error::file(&work_dir, e))?;
    let work_dir = work_dir.to_string_lossy().into_owned();
    let spill = work_dir.clone();
    let functions =
        ballista_core::utils::default_session_builder(SessionConfig::new_with_ballista())
            .map_err(|e| cluster_error("start the executor", e))?;
    let config = ExecutorProcessConfig {
        bind_host: options.host.clone(),
        external_host: Some(options.host.clone()),
        port: options.flight_port,
        grpc_port: options.grpc_port,
        scheduler_host: options.scheduler.ip().to_string(),
        scheduler_port: options.scheduler.port(),
        vcores: options
            .slots
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
        work_dir: Some(work_dir),
        // Shuffle files of finished jobs go after an hour.
        job_data_ttl_seconds: 3600,
        job_data_clean_up_interval_seconds: 600,
        executor_heartbeat_interval_seconds: options.heartbeat.as_secs().max(1),
        memory_pool_size: Some(options.memory.max(1 << 20)),
        // Ballista's default registry lacks the nested functions the metric files call.
        override_function_registry: Some(Arc::new(BallistaFunctionRegistry::from(&functions))),
        // Ballista's own runtime, plus the S3 stores; its memory pool is added on top.
        override_runtime_producer: Some(Arc::new(move |_| runtime_with_stores(Some(&spill)))),
        ..Default::default()
    };
    crate::progress::note!(
        "executor on {}:{} (tasks on {}), scheduler {}",
        options.host,
        options.flight_port,
        options.grpc_port,
        options.scheduler
    );
    runtime()?.block_on(async move {
        start_executor_process(Arc::new(config))
            .await
            .map_err(|e| cluster_error("run the executor", e))
    })
}

/// A client session whose queries run on the cluster at `url` (`df://host:port`), with this
/// session's settings and runtime (object stores, spill folder).
pub fn remote_context(
    runtime: &tokio::runtime::Runtime,
    url: &str,
    config: SessionConfig,
    runtime_env: Arc<RuntimeEnv>,
) -> Result<SessionContext> {
    // The adaptive planner (on by default in Ballista 55) loses track of a stage's task metrics
    // on the metric files' plans and never finishes the job: the static planner runs.
    let mut config = config
        .upgrade_for_ballista()
        .with_ballista_adaptive_query_planner(false);
    // Hash joins, as in one process. Ballista 55 plans sort-merge joins by default (they spill),
    // and a sort-merge join is never a broadcast: joining the few rows of `model_runs` to the
    // responses then shuffled and sorted every response (8 GB per executor at 100 million
    // responses). A hash join whose small side is under Ballista's broadcast threshold sends that
    // side whole to every task instead; the metric files' other joins hold their small side
    // within the executors' memory limit as they do within one process's.
    config.options_mut().optimizer.prefer_hash_join = true;
    let state = SessionStateBuilder::new()
        .with_default_features()
        .with_config(config)
        .with_runtime_env(runtime_env)
        .build();
    runtime
        .block_on(SessionContext::remote_with_state(url, state))
        .map_err(|e| Error::setting("cluster", format!("{url}: {e}")))
}
