//! Tables in object storage, for real: a local S3-compatible server (moto's, from PyPI) on
//! 127.0.0.1, the default pipeline run into it, and `generate` killed while it pushes.

use std::collections::BTreeMap;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use object_store::aws::AmazonS3Builder;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt};

use crate::util::{advmath, python_has, SMALL_GENERATION};

const BUCKET: &str = "lab-bucket";

/// A moto S3 server in its own process, stopped when dropped.
pub struct Moto {
    child: Child,
    pub port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Moto {
    /// Start a server with bucket [`BUCKET`], or None (the test is skipped) without moto.
    pub fn start() -> Option<Moto> {
        if !python_has("moto.server") {
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let script = format!(
            "from moto.server import ThreadedMotoServer\nimport time\n\
             ThreadedMotoServer(ip_address='127.0.0.1', port={port}).start()\n\
             while True: time.sleep(3600)\n"
        );
        let child = Command::new("python3")
            .args(["-c", &script])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("python3 starts");
        let moto = Moto { child, port };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "moto did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let created = ureq::put(&format!("http://127.0.0.1:{port}/{BUCKET}")).send_empty();
        assert!(created.is_ok(), "cannot create the bucket: {created:?}");
        Some(moto)
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `advmath` with the environment of this server and a cache folder of its own.
    pub fn advmath(&self, cache: &Path) -> assert_cmd::Command {
        let mut cmd = advmath();
        cmd.envs(self.vars(cache));
        cmd
    }

    pub fn env<'a>(&self, cmd: &'a mut Command, cache: &Path) -> &'a mut Command {
        cmd.envs(self.vars(cache))
    }

    /// This server's endpoint and credentials, and a cache folder of the command's own.
    fn vars(&self, cache: &Path) -> [(&'static str, std::ffi::OsString); 5] {
        [
            ("AWS_ENDPOINT_URL", self.endpoint().into()),
            ("AWS_ACCESS_KEY_ID", "test".into()),
            ("AWS_SECRET_ACCESS_KEY", "test".into()),
            ("AWS_REGION", "us-east-1".into()),
            ("ADVMATH_CACHE_DIR", cache.into()),
        ]
    }

    fn store(&self) -> impl ObjectStore {
        AmazonS3Builder::new()
            .with_bucket_name(BUCKET)
            .with_endpoint(self.endpoint())
            .with_allow_http(true)
            .with_region("us-east-1")
            .with_access_key_id("test")
            .with_secret_access_key("test")
            .build()
            .unwrap()
    }

    /// Every object under `prefix`, by key relative to it.
    pub fn objects(&self, prefix: &str) -> BTreeMap<String, Vec<u8>> {
        let store = self.store();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            use futures::TryStreamExt;
            let metas: Vec<_> = store
                .list(Some(&ObjectPath::from(prefix)))
                .try_collect()
                .await
                .unwrap();
            let mut out = BTreeMap::new();
            for meta in metas {
                let bytes = store.get(&meta.location).await.unwrap().bytes().await;
                let key = meta.location.to_string();
                let relative = advmath::cut::after(&key, prefix.len())
                    .trim_start_matches('/')
                    .to_string();
                out.insert(relative, bytes.unwrap().to_vec());
            }
            out
        })
    }
}

/// Every file under `dir` that goes to the store (no hidden file, no write-ahead log), by path
/// relative to `dir`.
fn local_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for path in crate::util::walk(dir) {
        let relative = path
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .to_string();
        if relative.split('/').any(|p| p.starts_with('.')) || relative.ends_with(".wal") {
            continue;
        }
        out.insert(relative, std::fs::read(&path).unwrap());
    }
    out
}

fn under(files: &BTreeMap<String, Vec<u8>>, folder: &str) -> BTreeMap<String, Vec<u8>> {
    files
        .iter()
        .filter(|(k, _)| k.starts_with(&format!("{folder}/")))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn assert_same_files(expected: &BTreeMap<String, Vec<u8>>, got: &BTreeMap<String, Vec<u8>>) {
    assert_eq!(
        expected.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>()
    );
    for (key, bytes) in expected {
        assert!(got[key] == *bytes, "{key} differs");
    }
}

/// The whole default pipeline with `--out s3://...`: its tables in the bucket are the local
/// run's byte for byte, a rerun from another machine (an empty cache) leaves them identical,
/// and `metrics` and `sql` read them from the store.
#[test]
fn the_default_pipeline_on_s3_equals_the_local_run() {
    let Some(moto) = Moto::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("local");
    advmath()
        .arg("run")
        .args(SMALL_GENERATION)
        .arg("--out")
        .arg(&local)
        .assert()
        .success();
    moto.advmath(&dir.path().join("cache-a"))
        .arg("run")
        .args(SMALL_GENERATION)
        .args(["--out", &format!("s3://{BUCKET}/study")])
        .assert()
        .success();
    let expected = under(&local_files(&local), "tables");
    assert!(expected.len() >= 20, "{} table files", expected.len());
    let first = moto.objects("study");
    assert!(first.contains_key("_advmath/manifest.json"));
    assert_same_files(&expected, &under(&first, "tables"));
    // The same run again on the same machine rewrites the same bytes: nothing is sent.
    let again = moto
        .advmath(&dir.path().join("cache-a"))
        .arg("run")
        .args(SMALL_GENERATION)
        .args(["--out", &format!("s3://{BUCKET}/study")])
        .assert()
        .success();
    let stderr = crate::util::stderr_of(&again);
    assert!(!stderr.contains("pushed"), "{stderr}");
    // A rerun elsewhere: the same objects, the same manifest.
    moto.advmath(&dir.path().join("cache-b"))
        .arg("run")
        .args(SMALL_GENERATION)
        .args(["--out", &format!("s3://{BUCKET}/study")])
        .assert()
        .success();
    let second = moto.objects("study");
    assert_same_files(&under(&first, "tables"), &under(&second, "tables"));
    assert!(first["_advmath/manifest.json"] == second["_advmath/manifest.json"]);
    // The tables folder below the run folder follows the run's manifest.
    let metrics = dir.path().join("metrics-s3");
    moto.advmath(&dir.path().join("cache-c"))
        .args([
            "metrics",
            "--tables",
            &format!("s3://{BUCKET}/study/tables"),
        ])
        .arg("--out")
        .arg(&metrics)
        .assert()
        .success();
    let local_metrics = dir.path().join("metrics-local");
    advmath()
        .args(["metrics", "--tables"])
        .arg(local.join("tables"))
        .arg("--out")
        .arg(&local_metrics)
        .assert()
        .success();
    let csv = |d: &PathBuf| -> BTreeMap<String, Vec<u8>> {
        local_files(d)
            .into_iter()
            .filter(|(k, _)| k.ends_with(".csv"))
            .collect()
    };
    let expected_csv = csv(&local_metrics);
    assert!(
        expected_csv.len() >= 10,
        "{} metric files",
        expected_csv.len()
    );
    assert_same_files(&expected_csv, &csv(&metrics));
    // Each stage on its own over the bucket: it reads there and its outputs land there.
    let tables = format!("s3://{BUCKET}/study/tables");
    let stage_cache = dir.path().join("cache-d");
    for args in [
        vec!["respond", "--model", "sim-carry", "--tables", &tables],
        vec!["features", "--tables", &tables],
        vec![
            "regress",
            "--tables",
            &tables,
            "--report-dir",
            "s3://lab-bucket/study/regress-again",
        ],
        vec![
            "publish",
            "--tables",
            &tables,
            "--out",
            "s3://lab-bucket/study/hub-again",
        ],
        vec!["compact", "--tables", &tables],
    ] {
        moto.advmath(&stage_cache).args(&args).assert().success();
    }
    let after = moto.objects("study");
    assert!(after.keys().any(|k| k.starts_with("regress-again/")));
    assert!(after
        .keys()
        .any(|k| k.starts_with("hub-again/") && k.ends_with(".parquet")));
    // Nothing a stage rewrote changed a table's bytes: the same inputs, the same objects.
    assert_same_files(
        &under(&first, "tables/variants"),
        &under(&after, "tables/variants"),
    );
    let count = moto
        .advmath(&dir.path().join("cache-c"))
        .args(["sql", "--tables", &format!("s3://{BUCKET}/study/tables")])
        .args(["--format", "csv", "SELECT COUNT(*) AS n FROM variants"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&count.get_output().stdout).to_string();
    assert!(text
        .lines()
        .nth(1)
        .is_some_and(|n| n.parse::<u64>().unwrap() > 0));
}

/// Is `bytes` a whole Parquet file (its footer reads)?
fn whole_parquet(bytes: &[u8]) -> bool {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), bytes).unwrap();
    let reader = std::fs::File::open(file.path()).unwrap();
    parquet::file::reader::SerializedFileReader::new(reader).is_ok()
}

/// `generate` to S3 killed (SIGKILL) at each of its durable steps, the pushes included: no
/// object in the bucket is ever partial, the manifest lists only whole objects, and the rerun
/// (same machine, same cache) gives the uninterrupted run's objects.
#[test]
fn a_kill_during_generate_to_s3_leaves_no_partial_object() {
    use std::os::unix::process::ExitStatusExt;
    let Some(moto) = Moto::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let url = format!("s3://{BUCKET}/killed");
    let cache = dir.path().join("cache");
    moto.advmath(&cache)
        .args(["ingest", "--tables", &url])
        .assert()
        .success();
    let reference = dir.path().join("reference");
    advmath()
        .args(["ingest", "--tables"])
        .arg(&reference)
        .assert()
        .success();
    advmath()
        .arg("generate")
        .args(SMALL_GENERATION)
        .arg("--tables")
        .arg(&reference)
        .assert()
        .success();
    // The steps of the same generate on a prefix of its own: where its pushes are.
    let (count_url, count_cache) = (
        format!("s3://{BUCKET}/count"),
        dir.path().join("cache-count"),
    );
    moto.advmath(&count_cache)
        .args(["ingest", "--tables", &count_url])
        .assert()
        .success();
    let log = dir.path().join("count.log");
    moto.advmath(&count_cache)
        .env("ADVMATH_FAULT_LOG", &log)
        .arg("generate")
        .args(SMALL_GENERATION)
        .args(["--tables", &count_url])
        .assert()
        .success();
    let lines: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let uploads: Vec<usize> = lines
        .iter()
        .filter(|l| l.contains(" upload ") || l.contains(" commit manifest"))
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(uploads.len() >= 5, "{lines:?}");
    let total = lines.len();
    let crash_points: Vec<usize> = [
        1,
        total / 3,
        uploads[0],
        uploads[uploads.len() / 2],
        *uploads.last().unwrap(),
    ]
    .into_iter()
    .collect();
    for k in crash_points {
        let out = moto
            .env(
                &mut Command::new(assert_cmd::cargo::cargo_bin("advmath")),
                &cache,
            )
            .env("ADVMATH_CRASH_AT", k.to_string())
            .arg("generate")
            .args(SMALL_GENERATION)
            .args(["--tables", &url])
            .output()
            .unwrap();
        assert_eq!(out.status.signal(), Some(9), "step {k}: not killed");
        let objects = moto.objects("killed");
        for (key, bytes) in &objects {
            if key.ends_with(".parquet") {
                assert!(whole_parquet(bytes), "step {k}: {key} is partial");
            }
        }
        let manifest: serde_json::Value =
            serde_json::from_slice(&objects["_advmath/manifest.json"]).unwrap();
        for (key, entry) in manifest["objects"].as_object().unwrap() {
            let object = objects.get(key);
            assert!(
                object.is_some(),
                "step {k}: the manifest lists missing {key}"
            );
            assert_eq!(
                object.unwrap().len() as u64,
                entry["size"].as_u64().unwrap(),
                "step {k}: {key}"
            );
        }
    }
    moto.advmath(&cache)
        .arg("generate")
        .args(SMALL_GENERATION)
        .args(["--tables", &url])
        .assert()
        .success();
    let objects = moto.objects("killed");
    let expected = local_files(&reference);
    for table in ["variants", "generation_stats", "runs"] {
        assert_same_files(&under(&expected, table), &under(&objects, table));
    }
}

/// A manifest is untrusted input: one naming an absolute path, a `..` key or a staging
/// folder's journal (each with a real object behind it, so a download would succeed) makes every
/// command refuse the store, naming the keys, and no file outside the copy changes; a folder
/// read by listing never takes a planted journal either.
#[test]
fn keys_a_bucket_plants_never_reach_outside_the_copy() {
    let Some(moto) = Moto::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let url = format!("s3://{BUCKET}/planted");
    moto.advmath(&cache)
        .args(["ingest", "--tables", &url])
        .assert()
        .success();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    let journal = "payload\t../../victim\n";
    let store = moto.store();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let put = |key: &str, bytes: &[u8]| {
        let result = runtime
            .block_on(store.put(&ObjectPath::from(key), bytes.to_vec().into()))
            .unwrap();
        serde_json::json!({"size": bytes.len(), "e_tag": result.e_tag})
    };
    let manifest_key = "planted/_advmath/manifest.json";
    let manifest: serde_json::Value = serde_json::from_slice(
        &runtime
            .block_on(async {
                store
                    .get(&ObjectPath::from(manifest_key))
                    .await?
                    .bytes()
                    .await
            })
            .unwrap(),
    )
    .unwrap();
    let absolute = victim.to_str().unwrap().to_string();
    for key in [
        absolute.clone(),
        "problems/../../../victim".to_string(),
        ".staging-x-1/COMMIT".to_string(),
    ] {
        let mut planted = manifest.clone();
        let entry = put(&format!("planted/{key}"), journal.as_bytes());
        planted["objects"][&key] = entry;
        put(manifest_key, planted.to_string().as_bytes());
        for args in [
            vec!["sql", "--tables", &url, "SELECT COUNT(*) FROM problems"],
            vec!["generate", "--tables", &url],
        ] {
            let out = moto.advmath(&cache).args(&args).assert().code(1);
            let err = crate::util::stderr_of(&out);
            assert!(
                err.contains("key(s) a copy may not take") && err.contains(&format!("{key:?}")),
                "{key} {args:?}: {err}"
            );
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    }
    put(manifest_key, manifest.to_string().as_bytes());
    moto.advmath(&cache)
        .args(["sql", "--tables", &url, "SELECT COUNT(*) FROM problems"])
        .assert()
        .success();

    // Tables uploaded by hand (no manifest): a planted journal is not taken into the copy.
    let by_hand = format!("s3://{BUCKET}/by-hand");
    let problems = moto.objects("planted/problems");
    for (name, bytes) in problems.iter().filter(|(n, _)| n.ends_with(".parquet")) {
        put(&format!("by-hand/problems/{name}"), bytes);
    }
    put("by-hand/.staging-x-1/COMMIT", journal.as_bytes());
    let hand_cache = dir.path().join("cache-hand");
    moto.advmath(&hand_cache)
        .args(["sql", "--tables", &by_hand, "SELECT COUNT(*) FROM problems"])
        .assert()
        .success();
    let copied: Vec<_> = crate::util::walk(&hand_cache)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".staging"))
        .collect();
    assert!(copied.is_empty(), "{copied:?}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
}
