// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

interface IHarborToken {
    function deliverSupply(address to, uint256 supply) external;
}

/// @title Initializer of the base-layer (V3) example launch: delivers the token supply to the router, once.
/// @notice Its constructor names the lane's launch router, the only caller it accepts.
contract HarborInitializer {
    address public immutable router;

    error NotRouter();

    constructor(address router_) {
        router = router_;
    }

    function initializeGraph(address token, address, address recipient, uint256 supply) external {
        if (msg.sender != router) revert NotRouter();
        IHarborToken(token).deliverSupply(recipient, supply);
    }
}
