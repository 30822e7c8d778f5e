//! The clients scenario (conformance/clients/README.md) through the Rust client that openapi-generator 7.25.0 (`rust`, reqwest
//! blocking) generates from generated/openapi/service.clients-openapi-generator.json. Every call goes through the generated
//! operations, every body through the generated models. One line per step; exit 1 at the first mismatch.
//! Environment: CLIENTS_BASE_URL, CLIENTS_API_KEY (never printed), CLIENTS_INPUTS.

use std::collections::HashSet;
use std::io::Write;
use std::process::exit;
use std::time::{Duration, Instant};

use custom_launch_client::apis::configuration::Configuration;
use custom_launch_client::apis::launches_v4_api as launches;
use custom_launch_client::apis::public_reads_api as public;
use custom_launch_client::apis::{Error, ResponseContent};
use custom_launch_client::models;
use serde_json::Value;

const CHAIN: models::ChainId4663 = models::ChainId4663::Variant4663;

fn line(step: &str, text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{step}: {text}");
    let _ = out.flush();
}

fn mismatch(step: &str, text: &str) -> ! {
    line(step, &format!("MISMATCH {text}"));
    exit(1)
}

fn clip(s: &str) -> String {
    let s = s.replace('\n', " ");
    if s.chars().count() > 400 {
        format!("{}…", s.chars().take(400).collect::<String>())
    } else {
        s
    }
}

/// An error of a generated operation, described without anything from the request (the key is never in it).
fn describe<T>(e: &Error<T>) -> String {
    match e {
        Error::ResponseError(rc) => format!("HTTP {} {}", rc.status.as_u16(), clip(&rc.content)),
        other => clip(&other.to_string()),
    }
}

/// The response of a generated operation when it answered `expected`; any other answer exits on `step`.
fn answered<S, E>(step: &str, result: Result<ResponseContent<S>, Error<E>>, expected: u16) -> ResponseContent<S> {
    let rc = result.unwrap_or_else(|e| mismatch(step, &format!("expected {expected}, got {}", describe(&e))));
    if rc.status.as_u16() != expected {
        mismatch(step, &format!("expected {expected}, got {}", rc.status.as_u16()));
    }
    rc
}

/// The entity of a successful response as the generated model `M`. The generated code decodes with `.ok()`
/// into an untagged enum; when that yields nothing, decode again with `M` to show serde's own message.
fn decoded<S, M: serde::de::DeserializeOwned + Clone>(
    step: &str,
    rc: &ResponseContent<S>,
    pick: impl Fn(&S) -> Option<&M>,
    model: &str,
) -> M {
    if let Some(m) = rc.entity.as_ref().and_then(|e| pick(e)) {
        return m.clone();
    }
    match serde_json::from_str::<M>(&rc.content) {
        Ok(m) => m,
        Err(e) => mismatch(
            step,
            &format!("expected a {model} body, got one the generated type cannot decode: {e}; body {}", clip(&rc.content)),
        ),
    }
}

/// First place where two JSON values differ, as a JSON pointer with both sides.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                let p = format!("{path}/{k}");
                match y.get(k) {
                    None => return Some(format!("{p}: input has {}, re-serialized model drops it", clip(&va.to_string()))),
                    Some(vb) => {
                        if let Some(d) = first_difference(&p, va, vb) {
                            return Some(d);
                        }
                    }
                }
            }
            for (k, vb) in y {
                if !x.contains_key(k) {
                    return Some(format!("{path}/{k}: absent in input, re-serialized model adds {}", clip(&vb.to_string())));
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: array of {} in input, {} re-serialized", x.len(), y.len()));
            }
            x.iter().zip(y).enumerate().find_map(|(i, (va, vb))| first_difference(&format!("{path}/{i}"), va, vb))
        }
        _ if a == b => None,
        _ => Some(format!("{path}: input {} vs re-serialized {}", clip(&a.to_string()), clip(&b.to_string()))),
    }
}

/// Parses a request object into the generated request-body model and proves that the model re-serializes to
/// the same JSON (no field dropped, none added as null, no number reshaped): the server binds these bytes.
fn request_model(step: &str, name: &str, v: &Value) -> models::CustomLaunchCreateRequestV4 {
    let model: models::CustomLaunchCreateRequestV4 = serde_json::from_value(v.clone())
        .unwrap_or_else(|e| mismatch(step, &format!("inputs.{name} does not decode into CustomLaunchCreateRequestV4: {e}")));
    let back = serde_json::to_value(&model)
        .unwrap_or_else(|e| mismatch(step, &format!("CustomLaunchCreateRequestV4 does not serialize: {e}")));
    if let Some(d) = first_difference("", v, &back) {
        mismatch(step, &format!("inputs.{name} does not round-trip through CustomLaunchCreateRequestV4: {d}"));
    }
    model
}

fn request_fields(m: &models::CustomLaunchCreateRequestV4) -> (String, String) {
    match m {
        models::CustomLaunchCreateRequestV4::CustomLaunchCreateRequestV4Profile410(r) => {
            (r.launch_intent_hash.clone(), r.launch_wallet.clone())
        }
        models::CustomLaunchCreateRequestV4::CustomLaunchCreateRequestV4Profile400(r) => {
            (r.launch_intent_hash.clone(), r.launch_wallet.clone())
        }
    }
}

fn is_hex(s: &str) -> bool {
    s.bytes().all(|c| c.is_ascii_hexdigit())
}
fn is_address(s: &str) -> bool {
    s.len() == 42 && s.starts_with("0x") && is_hex(&s[2..])
}
fn is_decimal(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit())
}
fn json_str<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => "?".into(),
    }
}

/// Sends the V4 create with `key` and decodes the launch, exiting on any status but `expected`.
fn create_expecting(
    step: &str,
    config: &Configuration,
    key: &str,
    request: &models::CustomLaunchCreateRequestV4,
    expected: u16,
) -> models::CustomLaunchResourceV4 {
    let rc = answered(step, launches::create_custom_launch_v4(config, CHAIN, key, request.clone()), expected);
    decoded(step, &rc, |s| match s {
        launches::CreateCustomLaunchV4Success::Status200(m) | launches::CreateCustomLaunchV4Success::Status202(m) => Some(m),
        _ => None,
    }, "CustomLaunchResourceV4")
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        eprintln!("environment variable {name} is not set");
        exit(2)
    })
}

fn main() {
    let base_url = env("CLIENTS_BASE_URL").trim_end_matches('/').to_string();
    let api_key = env("CLIENTS_API_KEY");
    let inputs_path = env("CLIENTS_INPUTS");
    let inputs: Value = std::fs::read_to_string(&inputs_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| {
            eprintln!("cannot read the inputs file {inputs_path}");
            exit(2)
        });

    let mut authed = Configuration::new();
    authed.base_path = base_url.clone();
    authed.bearer_access_token = Some(api_key);
    let mut anonymous = Configuration::new();
    anonymous.base_path = base_url;

    // 1. capabilities
    let step = "capabilities";
    let rc = answered(step, public::get_custom_launch_capabilities_v4(&authed, CHAIN), 200);
    let caps: models::CustomLaunchCapabilitiesV2 = decoded(step, &rc, |s| match s {
        public::GetCustomLaunchCapabilitiesV4Success::Status200(m) => Some(m),
        _ => None,
    }, "CustomLaunchCapabilitiesV2");
    let chain = caps.chain_id.to_string();
    let profiles: Vec<String> = caps.profiles.iter().map(|p| format!("{} {}", json_str(&p.profile), json_str(&p.state))).collect();
    if chain != "4663" {
        mismatch(step, &format!("expected chainId 4663, got {chain}"));
    }
    if !caps.profiles.iter().any(|p| json_str(&p.profile) == "4.1.0") {
        mismatch(step, &format!("expected profile 4.1.0 among [{}]", profiles.join(", ")));
    }
    line(step, &format!("200, chain {chain}, profiles {}", profiles.join(", ")));

    // 2. preflight
    let step = "preflight";
    let request = request_model(step, "request", &inputs["request"]);
    let (intent_hash, launch_wallet) = request_fields(&request);
    let rc = answered(step, launches::preflight_custom_launch_v4(&authed, CHAIN, request.clone()), 200);
    let pre: models::CustomLaunchPreflightV2 = decoded(step, &rc, |s| match s {
        launches::PreflightCustomLaunchV4Success::Status200(m) => Some(m),
        _ => None,
    }, "CustomLaunchPreflightV2");
    if pre.launch_intent_hash != intent_hash {
        mismatch(step, &format!("expected launchIntentHash {intent_hash}, got {}", pre.launch_intent_hash));
    }
    line(step, &format!(
        "200, disposition {}, findings blocking {}, warning {}, needs-evidence {}, informational {}, launchIntentHash matches",
        json_str(&pre.disposition),
        pre.blocking_finding_codes.len(),
        pre.warning_finding_codes.len(),
        pre.needs_evidence_finding_codes.len(),
        pre.informational_finding_codes.len()
    ));

    // 3. create
    let step = "create";
    let key = inputs["idempotencyKey"].as_str().unwrap_or_else(|| mismatch(step, "inputs.idempotencyKey is not a string")).to_string();
    let created = create_expecting(step, &authed, &key, &request, 202);
    let launch_id = created.launch_id.clone();
    line(step, &format!("202, launchId {launch_id}, status {}", created.status));

    // 4. replay
    let step = "replay";
    let replayed = create_expecting(step, &authed, &key, &request, 200);
    if replayed.launch_id != launch_id {
        mismatch(step, &format!("expected launchId {launch_id}, got {}", replayed.launch_id));
    }
    line(step, &format!("200, same launchId {launch_id}, status {}", replayed.status));

    // 5. conflict
    let step = "conflict";
    let other = request_model(step, "otherRequest", &inputs["otherRequest"]);
    match launches::create_custom_launch_v4(&authed, CHAIN, &key, other) {
        Ok(rc) => mismatch(step, &format!("expected 409, got {}", rc.status.as_u16())),
        Err(Error::ResponseError(rc)) => {
            if rc.status.as_u16() != 409 {
                mismatch(step, &format!("expected 409, got HTTP {} {}", rc.status.as_u16(), clip(&rc.content)));
            }
            // The generated error enum is untagged and every variant holds ApiError, so serde puts any error body
            // in its first variant; the body is decoded here with the generated ApiError model itself.
            let err: models::ApiError = serde_json::from_str(&rc.content).unwrap_or_else(|e| {
                mismatch(step, &format!("expected an ApiError body, got one the generated type cannot decode: {e}; body {}", clip(&rc.content)))
            });
            let b = &err.error;
            if b.code != models::ApiErrorCode::IdempotencyConflict {
                mismatch(step, &format!("expected code IDEMPOTENCY_CONFLICT, got {}", b.code));
            }
            if b.request_id.is_empty() {
                mismatch(step, "expected a non-empty requestId");
            }
            if b.retryable {
                mismatch(step, "expected retryable false, got true");
            }
            line(step, &format!("409, {} requestId {}, retryable false", b.code, b.request_id));
        }
        Err(e) => mismatch(step, &format!("expected 409, got {}", describe(&e))),
    }

    // 6. sources
    let step = "sources";
    let files = inputs["sourceFiles"].as_array().cloned().unwrap_or_default();
    if files.is_empty() {
        mismatch(step, "inputs.sourceFiles is empty");
    }
    let mut statuses = Vec::new();
    for f in &files {
        let sha = f["sha256"].as_str().unwrap_or_default();
        let path = f["path"].as_str().unwrap_or_default();
        let bytes = std::fs::read(path).unwrap_or_else(|e| mismatch(step, &format!("cannot read source file {path}: {e}")));
        let rc = launches::put_custom_launch_source_file_v4(&authed, CHAIN, &launch_id, sha, bytes)
            .unwrap_or_else(|e| mismatch(step, &format!("{sha}: expected 201, got {}", describe(&e))));
        let code = rc.status.as_u16();
        if code != 201 && code != 200 {
            mismatch(step, &format!("{sha}: expected 201, got {code}"));
        }
        let receipt: models::CustomLaunchSourceFileReceiptV1 = decoded(step, &rc, |s| match s {
            launches::PutCustomLaunchSourceFileV4Success::Status201(m) | launches::PutCustomLaunchSourceFileV4Success::Status200(m) => Some(m),
            _ => None,
        }, "CustomLaunchSourceFileReceiptV1");
        if receipt.sha256 != sha {
            mismatch(step, &format!("expected receipt for {sha}, got {}", receipt.sha256));
        }
        statuses.push(format!("{code} ({}/{})", receipt.files_received, receipt.files_expected));
    }
    line(step, &format!("{} files: {}", files.len(), statuses.join(", ")));

    // 7. authorized
    let step = "authorized";
    let started = Instant::now();
    let mut seen: Vec<String> = Vec::new();
    let launch = loop {
        let rc = answered(step, launches::get_custom_launch_v4(&authed, CHAIN, &launch_id), 200);
        let l: models::CustomLaunchResourceV4 = decoded(step, &rc, |s| match s {
            launches::GetCustomLaunchV4Success::Status200(m) => Some(m),
            _ => None,
        }, "CustomLaunchResourceV4");
        let status = l.status.to_string();
        if seen.last() != Some(&status) {
            seen.push(status.clone());
        }
        match l.status {
            models::CustomLaunchStatusV4::Authorized | models::CustomLaunchStatusV4::AwaitingWalletSignature => break l,
            _ => {}
        }
        if ["action_required", "failed", "cancelled", "expired"].contains(&status.as_str()) {
            let findings: Vec<String> = l.findings.iter().map(|f| format!("{} ({})", f.code, json_str(&f.severity))).collect();
            mismatch(step, &format!("expected authorized, got {status}; findings [{}]; failure {}", findings.join(", "), l.failure.as_ref().map(|f| json_str(f)).unwrap_or_else(|| "null".into())));
        }
        if started.elapsed() > Duration::from_secs(90) {
            mismatch(step, &format!("expected authorized within 90 s, statuses seen {}", seen.join(" -> ")));
        }
        std::thread::sleep(Duration::from_millis(250));
    };
    let tx = launch.wallet_transaction.as_ref().unwrap_or_else(|| mismatch(step, &format!("status {} without walletTransaction", launch.status)));
    let tx_chain = tx.chain_id.to_string();
    if tx_chain != "4663" {
        mismatch(step, &format!("expected walletTransaction.chainId 4663, got {tx_chain}"));
    }
    if !tx.from.eq_ignore_ascii_case(&launch_wallet) {
        mismatch(step, &format!("expected walletTransaction.from {launch_wallet}, got {}", tx.from));
    }
    if !is_address(&tx.to) {
        mismatch(step, &format!("expected walletTransaction.to an address, got {}", tx.to));
    }
    if !is_decimal(&tx.value_wei) {
        mismatch(step, &format!("expected walletTransaction.valueWei a decimal string, got {}", tx.value_wei));
    }
    if !(tx.data.starts_with("0x") && tx.data.len() % 2 == 0 && is_hex(&tx.data[2..])) {
        mismatch(step, &format!("expected walletTransaction.data 0x-hex, got {}", clip(&tx.data)));
    }
    if !is_decimal(&tx.gas_limit) {
        mismatch(step, &format!("expected walletTransaction.gasLimit a decimal string, got {}", tx.gas_limit));
    }
    line(step, &format!(
        "{} (seen {}), to {}, valueWei {}, gasLimit {}, data {} bytes",
        launch.status,
        seen.join(" -> "),
        tx.to,
        tx.value_wei,
        tx.gas_limit,
        (tx.data.len() - 2) / 2
    ));

    // 8. list
    let step = "list";
    let mut cursor: Option<String> = None;
    let mut pages = 0usize;
    let mut ids = HashSet::new();
    let mut found_on: Option<usize> = None;
    loop {
        let rc = launches::list_custom_launches_v4(&authed, CHAIN, Some(1), cursor.as_deref()).unwrap_or_else(|e| mismatch(step, &format!("page {}: expected 200, got {}", pages + 1, describe(&e))));
        if rc.status.as_u16() != 200 {
            mismatch(step, &format!("page {}: expected 200, got {}", pages + 1, rc.status.as_u16()));
        }
        let page: models::CustomLaunchListV4 = decoded(step, &rc, |s| match s {
            launches::ListCustomLaunchesV4Success::Status200(m) => Some(m),
            _ => None,
        }, "CustomLaunchListV4");
        pages += 1;
        if page.launches.len() > 1 {
            mismatch(step, &format!("page {pages}: expected at most 1 launch, got {}", page.launches.len()));
        }
        for l in &page.launches {
            if !ids.insert(l.launch_id.clone()) {
                mismatch(step, &format!("page {pages}: launchId {} seen twice", l.launch_id));
            }
            if l.launch_id == launch_id {
                found_on = Some(pages);
            }
        }
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
        if pages > 10_000 {
            mismatch(step, "more than 10000 pages");
        }
    }
    let found_on = found_on.unwrap_or_else(|| mismatch(step, &format!("launchId {launch_id} not on any of {pages} pages")));
    if pages < 2 {
        mismatch(step, &format!("expected at least 2 pages, got {pages}"));
    }
    line(step, &format!("{pages} pages of limit 1, {} launches, {launch_id} on page {found_on}", ids.len()));

    // 9. finalized feed (public: the configuration carries no credential)
    let step = "finalized feed";
    let rc = answered(step, public::list_finalized_custom_launches_v4(&anonymous, CHAIN, None, None), 200);
    let feed: models::CustomLaunchFinalizedListV4 = decoded(step, &rc, |s| match s {
        public::ListFinalizedCustomLaunchesV4Success::Status200(m) => Some(m),
        _ => None,
    }, "CustomLaunchFinalizedListV4");
    if feed.launches.is_empty() {
        mismatch(step, "expected at least one finalized launch, got 0");
    }
    // CustomLaunchFinalizedItemV4 has no status property (the contract's item is finalized by construction);
    // each item must carry what finalization means: a transaction hash and a block.
    for l in &feed.launches {
        let finalized = l.transaction_hash.starts_with("0x") && is_decimal(&l.block_number) && l.block_hash.starts_with("0x");
        if !finalized {
            mismatch(step, &format!("launch {}: not finalized (transactionHash {}, blockNumber {})", l.launch_id, l.transaction_hash, l.block_number));
        }
    }
    line(step, &format!("200, {} finalized launches, first {}", feed.launches.len(), feed.launches[0].launch_id));
}
