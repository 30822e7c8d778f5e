"""The clients scenario (conformance/clients/README.md) through the Python client generated from the spec.

Reads CLIENTS_BASE_URL, CLIENTS_API_KEY (never printed) and CLIENTS_INPUTS; prints one line a step and exits 1 at
the first mismatch.
"""
import io
import json
import os
import re
import sys
import time
from typing import Any, Literal, NoReturn

from custom_launch_api_client import AuthenticatedClient, Client
from custom_launch_api_client.api.launches_v4 import (
    create_custom_launch_v4,
    get_custom_launch_v4,
    list_custom_launches_v4,
    preflight_custom_launch_v4,
    put_custom_launch_source_file_v4,
)
from custom_launch_api_client.api.public_reads import (
    get_custom_launch_capabilities_v4,
    list_finalized_custom_launches_v4,
)
from custom_launch_api_client.models import (
    ApiError,
    CustomLaunchCapabilitiesV2,
    CustomLaunchCreateRequestV4Profile410,
    CustomLaunchFinalizedListV4,
    CustomLaunchListV4,
    CustomLaunchPreflightV2,
    CustomLaunchResourceV4,
    CustomLaunchSourceFileReceiptV1,
    CustomLaunchWalletTransactionV4,
)
from custom_launch_api_client.types import UNSET, File, Response, Unset

CHAIN: Literal["4663"] = "4663"


def step(name: str, line: str) -> None:
    print(f"{name}: {line}", flush=True)


def mismatch(name: str, what: str) -> NoReturn:
    print(f"{name}: MISMATCH {what}", flush=True)
    sys.exit(1)


def show(response: Any) -> str:
    return f"{int(response.status_code)} {response.content[:400]!r}"


with open(os.environ["CLIENTS_INPUTS"], encoding="utf-8") as f:
    inputs = json.load(f)
base_url = os.environ["CLIENTS_BASE_URL"]
client = AuthenticatedClient(base_url=base_url, token=os.environ["CLIENTS_API_KEY"])
public = Client(base_url=base_url)

# The request files decoded into the generated model; it must give back exactly what it read.
request = CustomLaunchCreateRequestV4Profile410.from_dict(inputs["request"])
other_request = CustomLaunchCreateRequestV4Profile410.from_dict(inputs["otherRequest"])
if request.to_dict() != inputs["request"]:
    mismatch("preflight", "the generated request model gives back the request it decoded; it does not")

caps = get_custom_launch_capabilities_v4.sync_detailed(CHAIN, client=client)
if caps.status_code != 200 or not isinstance(caps.parsed, CustomLaunchCapabilitiesV2):
    mismatch("capabilities", f"200, got {show(caps)}")
profiles = [f"{p.profile} {p.state}" for p in caps.parsed.profiles]
if caps.parsed.chain_id != CHAIN or not any(p.profile == "4.1.0" for p in caps.parsed.profiles):
    mismatch("capabilities", f"chain 4663 with profile 4.1.0, got {str(caps.parsed.to_dict())[:400]}")
step("capabilities", f"200, chain {caps.parsed.chain_id}, profiles {', '.join(profiles)}")

pre = preflight_custom_launch_v4.sync_detailed(CHAIN, client=client, body=request)
if pre.status_code != 200 or not isinstance(pre.parsed, CustomLaunchPreflightV2):
    mismatch("preflight", f"200, got {show(pre)}")
if pre.parsed.launch_intent_hash != request.launch_intent_hash:
    mismatch("preflight", f"launchIntentHash {request.launch_intent_hash}, got {pre.parsed.launch_intent_hash}")
step(
    "preflight",
    f"200, disposition {pre.parsed.disposition}, {len(pre.parsed.blocking_finding_codes)} blocking, "
    f"{len(pre.parsed.warning_finding_codes)} warning findings",
)


def create(body: CustomLaunchCreateRequestV4Profile410) -> Response[ApiError | CustomLaunchResourceV4]:
    return create_custom_launch_v4.sync_detailed(
        CHAIN, client=client, body=body, idempotency_key=inputs["idempotencyKey"]
    )


created = create(request)
if created.status_code != 202 or not isinstance(created.parsed, CustomLaunchResourceV4):
    mismatch("create", f"202, got {show(created)}")
launch_id = created.parsed.launch_id
step("create", f"202, launchId {launch_id}, status {created.parsed.status}")

replayed = create(request)
if replayed.status_code != 200 or not isinstance(replayed.parsed, CustomLaunchResourceV4):
    mismatch("replay", f"200, got {show(replayed)}")
if replayed.parsed.launch_id != launch_id:
    mismatch("replay", f"launchId {launch_id}, got {replayed.parsed.launch_id}")
step("replay", f"200, the same launchId {replayed.parsed.launch_id}")

conflict = create(other_request)
error = conflict.parsed
if conflict.status_code != 409 or not isinstance(error, ApiError):
    mismatch("conflict", f"409 as an ApiError, got {show(conflict)}")
if error.error.code != "IDEMPOTENCY_CONFLICT" or not error.error.request_id or error.error.retryable is not False:
    mismatch("conflict", f"IDEMPOTENCY_CONFLICT, not retryable, got {error.to_dict()}")
step("conflict", f"409 {error.error.code}, requestId {error.error.request_id}, retryable false")

delivered = []
for source in inputs["sourceFiles"]:
    with open(source["path"], "rb") as source_file:
        payload = io.BytesIO(source_file.read())
    put = put_custom_launch_source_file_v4.sync_detailed(
        CHAIN, launch_id, source["sha256"], client=client, body=File(payload=payload)
    )
    if put.status_code not in (200, 201) or not isinstance(put.parsed, CustomLaunchSourceFileReceiptV1):
        mismatch("sources", f"201 for {source['sha256']}, got {show(put)}")
    delivered.append(str(int(put.status_code)))
step("sources", f"{len(delivered)} files delivered ({' '.join(delivered)})")

started = time.monotonic()
while True:
    read = get_custom_launch_v4.sync_detailed(CHAIN, launch_id, client=client)
    if read.status_code != 200 or not isinstance(read.parsed, CustomLaunchResourceV4):
        mismatch("authorized", f"200, got {show(read)}")
    launch = read.parsed
    status = str(launch.status)
    if status in ("authorized", "awaiting_wallet_signature"):
        break
    if status in ("action_required", "failed", "cancelled", "expired"):
        mismatch("authorized", f"authorized, got {status}: {read.content[:400]!r}")
    if time.monotonic() - started > 90:
        mismatch("authorized", f"authorized within 90 s, still {status}")
    time.sleep(0.25)
tx = launch.wallet_transaction
if not isinstance(tx, CustomLaunchWalletTransactionV4):
    mismatch("authorized", f"a walletTransaction, got {str(tx)[:400]}")
if (
    tx.chain_id != CHAIN
    or tx.from_.lower() != request.launch_wallet.lower()
    or not re.fullmatch(r"0x[0-9a-fA-F]{40}", tx.to)
    or not re.fullmatch(r"[0-9]+", tx.value_wei)
    or not re.fullmatch(r"0x(?:[0-9a-fA-F]{2})+", tx.data)
):
    mismatch("authorized", f"a walletTransaction from {request.launch_wallet} on chain 4663, got {str(tx.to_dict())[:400]}")
step(
    "authorized",
    f"{status} after {time.monotonic() - started:.1f} s; walletTransaction to {tx.to}, valueWei {tx.value_wei}, "
    f"gasLimit {tx.gas_limit}, data {(len(tx.data) - 2) // 2} bytes",
)

seen = set()
cursor: str | Unset = UNSET
pages = 0
on_page = 0
while True:
    page = list_custom_launches_v4.sync_detailed(CHAIN, client=client, limit=1, cursor=cursor)
    if page.status_code != 200 or not isinstance(page.parsed, CustomLaunchListV4):
        mismatch("list", f"200, got {show(page)}")
    pages += 1
    if len(page.parsed.launches) > 1:
        mismatch("list", f"at most 1 launch a page, got {len(page.parsed.launches)}")
    for listed in page.parsed.launches:
        if listed.launch_id in seen:
            mismatch("list", f"each launch once, got {listed.launch_id} twice")
        seen.add(listed.launch_id)
        if listed.launch_id == launch_id:
            on_page = pages
    if not isinstance(page.parsed.next_cursor, str):
        break
    cursor = page.parsed.next_cursor
if pages < 2 or on_page == 0:
    mismatch("list", f"at least 2 pages with launch {launch_id}, got {pages} pages")
step("list", f"{pages} pages of limit=1, launch {launch_id} on page {on_page}")

feed = list_finalized_custom_launches_v4.sync_detailed(CHAIN, client=public)
if feed.status_code != 200 or not isinstance(feed.parsed, CustomLaunchFinalizedListV4):
    mismatch("finalized feed", f"200, got {show(feed)}")
items = feed.parsed.launches
if not items or any(item.chain_id != CHAIN or not item.transaction_hash for item in items):
    mismatch("finalized feed", f"at least one finalized launch, got {feed.content[:400]!r}")
first = items[0]
step(
    "finalized feed",
    f"200, {len(items)} launches, first {first.launch_id} (block {first.block_number}, "
    f"source verification {first.source_verification.status})",
)
