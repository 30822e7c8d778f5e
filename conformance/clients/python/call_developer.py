"""Reads the token list through the Python client generated from the developer API document (make conformance)."""
import os
import sys

from custom_launch_developer_client import Client
from custom_launch_developer_client.api.launches import get_developer_token_list
from custom_launch_developer_client.models import DeveloperTokenListV2

client = Client(base_url=os.environ["CONFORMANCE_DEVELOPERS_URL"], raise_on_unexpected_status=True)
with client as c:
    listed = get_developer_token_list.sync_detailed(client=c)
    if listed.status_code != 200 or not isinstance(listed.parsed, DeveloperTokenListV2):
        print(f"python client: getDeveloperTokenList failed (HTTP {int(listed.status_code)})", file=sys.stderr)
        sys.exit(1)
    tokens = listed.parsed.tokens
    chains = sorted({int(token.chain_id) for token in tokens})
    version = listed.parsed.version
    if version.minor != len(tokens):
        print(f"python client: token list version minor {version.minor} != {len(tokens)} tokens", file=sys.stderr)
        sys.exit(1)
print(
    f"python client: getDeveloperTokenList -> 200 ({len(tokens)} tokens on chains {chains}, "
    f"version {version.major}.{version.minor}.{version.patch}, first {tokens[0].symbol} at {tokens[0].address})"
)
