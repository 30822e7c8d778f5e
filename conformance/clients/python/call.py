"""One authenticated call through the Python client generated from the spec (make conformance)."""
import os
import sys

from custom_launch_api_client import AuthenticatedClient
from custom_launch_api_client.api.launches_v4 import list_custom_launches_v4
from custom_launch_api_client.api.public_reads import get_custom_launch_capabilities_v4
from custom_launch_api_client.models import CustomLaunchCapabilitiesV2, CustomLaunchListV4

client = AuthenticatedClient(
    base_url=os.environ["CONFORMANCE_BASE_URL"],
    token=os.environ["CONFORMANCE_API_KEY"],
    raise_on_unexpected_status=True,
)
with client as c:
    listed = list_custom_launches_v4.sync_detailed("4663", client=c, limit=25)
    if listed.status_code != 200 or not isinstance(listed.parsed, CustomLaunchListV4):
        print(f"python client: listCustomLaunchesV4 failed (HTTP {int(listed.status_code)})", file=sys.stderr)
        sys.exit(1)
    statuses = sorted({launch.status.value for launch in listed.parsed.launches})
    caps = get_custom_launch_capabilities_v4.sync_detailed("4663", client=c)
    if caps.status_code != 200 or not isinstance(caps.parsed, CustomLaunchCapabilitiesV2):
        print(f"python client: getCustomLaunchCapabilitiesV4 failed (HTTP {int(caps.status_code)})", file=sys.stderr)
        sys.exit(1)
print(
    f"python client: listCustomLaunchesV4 -> 200 ({len(listed.parsed.launches)} launches, statuses {statuses}); "
    f"getCustomLaunchCapabilitiesV4 -> 200 (chain {caps.parsed.chain_id})"
)
