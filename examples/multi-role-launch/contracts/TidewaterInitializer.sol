// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

interface ITidewaterTokenHook {
    function deliverSupply(address to, uint256 supply) external;
}

/// @title Initializer of the shared-lane (MultiRole V2) example launch: delivers the token supply to the router, once.
/// @notice Its constructor names the lane's launch router, the only caller it accepts. The router passes the token_hook
/// as both the token and the hook.
contract TidewaterInitializer {
    address public immutable router;

    error NotRouter();

    constructor(address router_) {
        router = router_;
    }

    function initializeGraph(address tokenHook, address, address recipient, uint256 supply) external {
        if (msg.sender != router) revert NotRouter();
        ITidewaterTokenHook(tokenHook).deliverSupply(recipient, supply);
    }
}
