// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title Native/USD reference feed of the local chain-4663 devnet.
/// @notice Chainlink AggregatorV3-compatible reads (`decimals`, `latestRoundData`); the devnet operator publishes
/// rounds. The service only reads it: the initial-buy quote must be fresh (at most 60 s old), never a stale value.
contract NativeUsdPriceFeed {
    uint8 public constant decimals = 8;
    string public constant description = "NATIVE / USD (devnet)";
    uint256 public constant version = 1;

    address public immutable operator;
    uint80 private roundId;
    int256 private answer;
    uint256 private updatedAt;

    error NotOperator();

    constructor(int256 initialAnswer) {
        operator = msg.sender;
        _publish(initialAnswer, block.timestamp);
    }

    /// @notice Publishes a new round observed now.
    function publish(int256 newAnswer) external {
        if (msg.sender != operator) revert NotOperator();
        _publish(newAnswer, block.timestamp);
    }

    /// @notice Publishes a round observed at `observedAt` (to rehearse a stale or a future-dated source).
    function publishAt(int256 newAnswer, uint256 observedAt) external {
        if (msg.sender != operator) revert NotOperator();
        _publish(newAnswer, observedAt);
    }

    function latestRoundData()
        external
        view
        returns (uint80, int256, uint256, uint256, uint80)
    {
        return (roundId, answer, updatedAt, updatedAt, roundId);
    }

    function _publish(int256 newAnswer, uint256 observedAt) private {
        roundId += 1;
        answer = newAnswer;
        updatedAt = observedAt;
    }
}
