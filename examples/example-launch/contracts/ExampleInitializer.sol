// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

interface IExampleToken {
    function deliverSupply(address to, uint256 supply) external;
}

/// @title Initializer of the spec's V4 create example: delivers the token supply to the router, once.
contract ExampleInitializer {
    function initializeGraph(address token, address, address recipient, uint256 supply) external {
        IExampleToken(token).deliverSupply(recipient, supply);
    }
}
