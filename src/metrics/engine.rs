//! The SQL engine: DataFusion over the Parquet tables of a `tables/` folder, each table
//! registered only when its folder holds files.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::datasource::ViewTable;
use datafusion::execution::context::SQLOptions;
use datafusion::logical_expr::LogicalPlan;
use datafusion::prelude::{SessionConfig, SessionContext};

use super::{Cell, ResultTable, ATTACKS_VIEW, EMBEDDED_VIEWS};
use crate::error::{Error, Result};
use crate::store::commit::TablesLock;
use crate::store::{columns, TableLayout};
use crate::vocab::is_simulated;

mod availability;
mod bounds;
mod materialise;
mod tables;

use bounds::{physical_memory, resident_bytes, Passed, Watchdog};

/// Whether a known table could be registered.
#[derive(Debug, Clone, PartialEq)]
pub enum TableState {
    /// Registered, with this many Parquet files.
    Registered { files: usize },
    /// No folder.
    Missing,
    /// A folder without any `.parquet` file.
    Empty,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableStatus {
    pub layout: TableLayout,
    pub path: PathBuf,
    pub state: TableState,
}

/// A query's result: its schema (also when there is no row) and its batches.
#[derive(Debug, Clone)]
pub struct QueryOutput {
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
}

impl QueryOutput {
    pub fn rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }

    pub fn to_table(&self) -> Result<ResultTable> {
        ResultTable::from_batches(&self.schema, &self.batches)
    }
}

/// A table of `schema` without rows, as a view over an empty relation: a plan that travels to a
/// Ballista cluster, where an in-memory table cannot.
fn empty_table(
    schema: SchemaRef,
) -> std::result::Result<Arc<dyn TableProvider>, datafusion::error::DataFusionError> {
    let schema = datafusion::common::DFSchema::try_from(schema.as_ref().clone())?;
    let plan = LogicalPlan::EmptyRelation(datafusion::logical_expr::EmptyRelation {
        produce_one_row: false,
        schema: Arc::new(schema),
    });
    Ok(Arc::new(ViewTable::new(plan, None)))
}

/// Register (or replace) `model_order(model, position)`: the order in which Table 4's prefix
/// figure adds models (sql/xie_universal.sql); empty means by name. A view over its values, so
/// that it travels to a cluster too.
fn register_model_order(
    ctx: &SessionContext,
    models: &[String],
) -> std::result::Result<(), datafusion::error::DataFusionError> {
    use datafusion::logical_expr::{col, lit, LogicalPlanBuilder};
    let table = if models.is_empty() {
        empty_table(Arc::new(Schema::new(vec![
            Field::new(columns::MODEL, DataType::Utf8, false),
            Field::new("position", DataType::Int64, false),
        ])))?
    } else {
        let rows = models
            .iter()
            .zip(1i64..)
            .map(|(m, position)| vec![lit(m.as_str()), lit(position)])
            .collect();
        let plan = LogicalPlanBuilder::values(rows)?
            .project(vec![
                col("column1").alias(columns::MODEL),
                col("column2").alias("position"),
            ])?
            .build()?;
        Arc::new(ViewTable::new(plan, None))
    };
    ctx.deregister_table("model_order")?;
    ctx.register_table("model_order", table)?;
    Ok(())
}

/// Create the shared views of `sql/views/`, in file order, over the tables registered in `ctx`.
fn create_views(runtime: &tokio::runtime::Runtime, ctx: &SessionContext, dir: &Path) -> Result<()> {
    for (name, sql) in EMBEDDED_VIEWS {
        runtime
            .block_on(async { ctx.sql(sql).await?.collect().await })
            .map_err(|source| Error::Register {
                name: name.to_string(),
                dir: dir.to_path_buf(),
                source,
            })?;
    }
    Ok(())
}

/// A DataFusion session over one `tables/` folder, with its own tokio runtime.
pub struct SqlEngine {
    /// Always `Some` until dropped: the drop shuts it down without waiting for a cancelled
    /// query's operators (see `Drop`).
    runtime: Option<tokio::runtime::Runtime>,
    ctx: SessionContext,
    tables_dir: PathBuf,
    tables: Vec<TableStatus>,
    limits: EngineLimits,
    /// Shared views too big to hold in memory, written to temporary Parquet files that live as
    /// long as the session (deleted when it is dropped).
    held_files: std::sync::Mutex<Vec<Arc<dyn datafusion::execution::spill_file::SpillFile>>>,
    /// On a cluster: the committed tables pinned (a bucket), and the shared views' parts where
    /// the executors read them; removed when the engine is dropped.
    session: Option<crate::store::sessions::Session>,
    /// No stage switches a table in while the session can read it (a local folder's lock).
    _read: Option<TablesLock>,
}

/// What a query may use: worker threads, memory for its operators, and time. The default: all
/// cores, the default operator memory, no time bound.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EngineLimits {
    /// Worker threads (default: the cores).
    pub threads: Option<usize>,
    /// Bytes the operators of one query may hold (hash tables, sorts), enforced on the process's
    /// resident memory too: a query needing more fails. `None`: operators share
    /// [`default_operator_memory`] and aggregations and sorts spill to disk past it.
    pub memory: Option<usize>,
    /// Wall time one query may take; `None`: no bound.
    pub timeout: Option<std::time::Duration>,
    /// Run the queries on the Ballista cluster whose scheduler is at this URL (`df://host:port`;
    /// the `cluster` feature) instead of in this process. `threads` and `memory` then bound only
    /// this process's share (planning, the final results).
    pub cluster: Option<String>,
}

/// Operator memory without a limit given: 2 GiB, or half the machine's memory when that is less.
/// Past it aggregations and sorts spill to disk, so a metrics run over hundreds of millions of
/// responses stays within a few gigabytes instead of growing with the table; more memory would
/// only postpone the spilling.
pub fn default_operator_memory() -> usize {
    const CAP: usize = 2 << 30;
    physical_memory().map_or(CAP, |bytes| (bytes / 2).min(CAP))
}

/// Operator memory of a cluster executor without a limit given: half the machine's memory (an
/// executor is a machine's worker, and the other half is for its shuffle files' page cache and the
/// rest of the machine), or 2 GiB when the machine's memory is unknown.
pub fn default_executor_memory() -> usize {
    physical_memory().map_or(2 << 30, |bytes| bytes / 2)
}

impl SqlEngine {
    /// Open a `tables/` folder with one worker thread per core.
    pub fn open(tables: &Path) -> Result<Self> {
        Self::open_with_threads(tables, None)
    }

    /// Open a `tables/` folder; `threads` bounds DataFusion's parallelism (default: the cores).
    pub fn open_with_threads(tables: &Path, threads: Option<usize>) -> Result<Self> {
        Self::open_limited(
            tables,
            EngineLimits {
                threads,
                ..EngineLimits::default()
            },
        )
    }

    /// Open a `tables/` folder whose queries run within `limits`.
    pub fn open_limited(tables: &Path, limits: EngineLimits) -> Result<Self> {
        let threads = limits
            .threads
            .filter(|&t| t > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .thread_name("advmath-sql")
            .enable_all()
            .build()
            .map_err(Error::from)?;
        let (source, session) = tables::Source::of(&runtime, tables, limits.cluster.is_some())?;
        let tables_dir = source.display_path();
        let read = match &source {
            tables::Source::Local(dir) => Some(TablesLock::shared(dir)?),
            tables::Source::Remote { .. } => None,
        };
        let mut config = SessionConfig::new()
            .with_target_partitions(threads)
            .with_information_schema(true);
        // `responses/<model-folder>/part-*.parquet` is not hive-partitioned: read sub-folders.
        config
            .options_mut()
            .execution
            .listing_table_ignore_subdirectory = false;
        // First come, first served: an aggregation or sort that finds the pool full spills and
        // carries on. (A pool that splits itself fairly among the spilling operators gave each of
        // a plan's dozen aggregations too little to spill with, and failed them.)
        let pool = datafusion::execution::memory_pool::TrackConsumersPool::new(
            datafusion::execution::memory_pool::GreedyMemoryPool::new(
                limits.memory.unwrap_or_else(default_operator_memory),
            ),
            std::num::NonZeroUsize::new(5).expect("nonzero"),
        );
        let runtime_env = datafusion::execution::runtime_env::RuntimeEnvBuilder::new()
            .with_memory_pool(Arc::new(pool))
            .build_arc()?;
        source.register_store(&runtime_env)?;
        let ctx = match &limits.cluster {
            None => SessionContext::new_with_config_rt(config, runtime_env),
            #[cfg(feature = "cluster")]
            Some(url) => crate::cluster::remote_context(&runtime, url, config, runtime_env)?,
            #[cfg(not(feature = "cluster"))]
            Some(_) => {
                return Err(Error::setting(
                    "cluster",
                    "needs advmath built with the `cluster` feature \
                     (cargo install advmath --features cluster)",
                ))
            }
        };
        let statuses = tables::register(&runtime, &ctx, &source, session.as_ref())?;
        materialise::hold_attacks(&runtime, &ctx, session.as_ref()).map_err(|source| {
            Error::Register {
                name: ATTACKS_VIEW.0.to_string(),
                dir: tables_dir.to_path_buf(),
                source,
            }
        })?;
        let responses_registered = statuses.iter().any(|t| {
            t.layout.name == "responses" && matches!(t.state, TableState::Registered { .. })
        });
        if responses_registered {
            register_model_order(&ctx, &[]).map_err(|source| Error::Register {
                name: "model_order".into(),
                dir: tables_dir.to_path_buf(),
                source,
            })?;
            create_views(&runtime, &ctx, &tables_dir)?;
        }
        Ok(SqlEngine {
            runtime: Some(runtime),
            ctx,
            tables_dir,
            tables: statuses,
            limits,
            held_files: Default::default(),
            session,
            _read: read,
        })
    }

    fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime
            .as_ref()
            .expect("the runtime lives as long as the engine")
    }

    pub fn tables_dir(&self) -> &Path {
        &self.tables_dir
    }

    /// Every known table and whether it was registered.
    pub fn tables(&self) -> &[TableStatus] {
        &self.tables
    }

    /// The names of the registered tables.
    pub fn registered(&self) -> Vec<&'static str> {
        self.tables
            .iter()
            .filter(|t| matches!(t.state, TableState::Registered { .. }))
            .map(|t| t.layout.name)
            .collect()
    }

    /// Set the model order of the `model_order` table (`advmath metrics --model-order`): the
    /// listed models get positions 1, 2, ... in that order. A name twice, or a name with no
    /// response, is a usage error.
    pub fn set_model_order(&self, models: &[String]) -> Result<()> {
        let mut seen = BTreeSet::new();
        for m in models {
            if !seen.insert(m.as_str()) {
                return Err(Error::setting(
                    "model_order",
                    format!("has model `{m}` listed twice"),
                ));
            }
        }
        if !models.is_empty() {
            let known: BTreeSet<String> = self
                .query_table("SELECT DISTINCT model FROM responses WHERE model IS NOT NULL")?
                .rows
                .iter()
                .filter_map(|r| r[0].as_str().map(str::to_string))
                .collect();
            if let Some(unknown) = models.iter().find(|m| !known.contains(*m)) {
                let list: Vec<&str> = known.iter().map(String::as_str).collect();
                return Err(Error::setting(
                    "model_order",
                    format!(
                        "names model `{unknown}`, but model `{unknown}` has no response; the models are: {}",
                        list.join(", ")
                    ),
                ));
            }
        }
        register_model_order(&self.ctx, models).map_err(|source| Error::Register {
            name: "model_order".into(),
            dir: self.tables_dir.clone(),
            source,
        })?;
        // A view's plan holds the tables it read when it was created: the views are created
        // again so that `attack_models` numbers the models in the new order.
        if self.require("responses").is_err() {
            return Ok(());
        }
        for (name, _) in EMBEDDED_VIEWS {
            self.ctx.deregister_table(*name)?;
        }
        create_views(self.runtime(), &self.ctx, &self.tables_dir)
    }

    /// Plan one read-only SQL statement (no DDL, DML or `SET`) over the registered tables.
    async fn dataframe(&self, sql: &str) -> Result<datafusion::dataframe::DataFrame> {
        let state = self.ctx.state();
        let dialect = &state.config().options().sql_parser.dialect;
        let statement = state
            .sql_to_statement(sql, dialect)
            .map_err(|e| match e.find_root() {
                datafusion::error::DataFusionError::SQL(parse, _) => Error::BadQuery {
                    reason: format!("SQL syntax: {}", parse_message(parse)),
                    hint: "the query is DataFusion SQL, as in the files under sql/; quote it whole for the shell".into(),
                },
                _ => e.into(),
            })?;
        for reference in state.resolve_table_references(&statement)? {
            let qualified = matches!(reference.schema(), Some(s) if s != "public");
            if !qualified {
                self.require(reference.table())?;
                let function = state.table_functions().contains_key(reference.table());
                if !function && !self.ctx.table_exist(reference.clone())? {
                    return Err(self.unknown_table(reference.table()));
                }
            }
        }
        let plan = state.statement_to_plan(statement).await?;
        SQLOptions::new()
            .with_allow_ddl(false)
            .with_allow_dml(false)
            .with_allow_statements(false)
            .verify_plan(&plan)?;
        Ok(self.ctx.execute_logical_plan(plan).await?)
    }

    /// Run `work` within the engine's bounds: the timeout, and the process's resident memory
    /// (DataFusion's memory pool does not see every operator: a `count(DISTINCT …)` without
    /// GROUP BY grows outside it, and neither does what the caller does with the rows). The work
    /// is dropped, which cancels it, when a bound is passed.
    fn bounded<T>(&self, work: impl std::future::Future<Output = Result<T>>) -> Result<T> {
        let (timeout, memory) = (self.limits.timeout, self.limits.memory);
        let baseline = resident_bytes().unwrap_or(0);
        let watchdog = Watchdog::start(timeout, memory.map(|m| m.saturating_add(baseline)));
        let outcome = self.runtime().block_on(async {
            tokio::select! {
                result = work => result,
                passed = watchdog.passed() => Err(match passed {
                    Passed::Time => Error::QueryTimeout { limit: timeout.unwrap_or_default() },
                    Passed::Memory => Error::QueryMemory { limit: memory.unwrap_or(0), source: None },
                }),
            }
        });
        drop(watchdog);
        outcome.map_err(|e| match e {
            Error::DataFusion(source)
                if matches!(
                    source.find_root(),
                    datafusion::error::DataFusionError::ResourcesExhausted(_)
                ) =>
            {
                Error::QueryMemory {
                    limit: self.limits.memory.unwrap_or_else(default_operator_memory),
                    source: Some(source),
                }
            }
            other => other,
        })
    }

    /// Run one read-only SQL statement (no DDL, DML or `SET`) and collect its result.
    pub fn query(&self, sql: &str) -> Result<QueryOutput> {
        self.bounded(async {
            let df = self.dataframe(sql).await?;
            let schema: SchemaRef = Arc::clone(df.schema().inner());
            let batches = df.collect().await?;
            Ok(QueryOutput { schema, batches })
        })
    }

    /// Run one read-only SQL statement and hand its result to `each`, a batch at a time as it is
    /// computed: the timeout and the memory bound cover `each` too, so a printer of a huge result
    /// stays within them. Returns the result's schema.
    pub fn query_each(
        &self,
        sql: &str,
        each: &mut dyn FnMut(&SchemaRef, RecordBatch) -> Result<()>,
    ) -> Result<SchemaRef> {
        use futures::StreamExt;
        self.bounded(async {
            let df = self.dataframe(sql).await?;
            let schema: SchemaRef = Arc::clone(df.schema().inner());
            let mut stream = df.execute_stream().await?;
            while let Some(batch) = stream.next().await {
                each(&schema, batch?)?;
                // Let the bounds' watchers run between batches.
                tokio::task::yield_now().await;
            }
            Ok(schema)
        })
    }

    /// Run a query and copy its result into a [`ResultTable`].
    pub fn query_table(&self, sql: &str) -> Result<ResultTable> {
        self.query(sql)?.to_table()
    }

    /// Rows of a registered table (from the Parquet footers).
    pub fn row_count(&self, table: &str) -> Result<u64> {
        self.require(table)?;
        let t = self.query_table(&format!("SELECT COUNT(*) AS row_count FROM {table}"))?;
        Ok(t.get(0, "row_count").and_then(Cell::as_i64).unwrap_or(0) as u64)
    }

    /// The models of `responses` that are simulated: `simulated` = true on any row, or a name
    /// starting with `sim-` or `oracle`.
    pub fn simulated_models(&self) -> Result<BTreeSet<String>> {
        let t = self.query_table(
            "SELECT model, MAX(CASE WHEN simulated THEN 1 ELSE 0 END) AS flag \
             FROM responses GROUP BY model",
        )?;
        Ok(t.rows
            .iter()
            .filter_map(|r| {
                let model = r[0].as_str()?;
                let flagged = r[1].as_i64() == Some(1) || is_simulated(model);
                flagged.then(|| model.to_string())
            })
            .collect())
    }
}

impl Drop for SqlEngine {
    /// A query cancelled at a bound may leave operators mid-computation on the workers, and they
    /// stop only at their next yield: a plain drop of the runtime would wait for them, keeping the
    /// process (and its memory) alive past the bound. Shut down in the background instead.
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// A parser's message without its error-type prefix.
fn parse_message(e: &datafusion::sql::sqlparser::parser::ParserError) -> String {
    use datafusion::sql::sqlparser::parser::ParserError;
    match e {
        ParserError::ParserError(m) | ParserError::TokenizerError(m) => m.clone(),
        other => other.to_string(),
    }
}
