// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

struct PoolKey {
    address currency0;
    address currency1;
    uint24 fee;
    int24 tickSpacing;
    address hooks;
}

struct SwapParams {
    bool zeroForOne;
    int256 amountSpecified;
    uint160 sqrtPriceLimitX96;
}

/// @title Hook of the base-layer (V3) example launch: counts swaps before and after, callable only by the pool manager.
/// @notice Enables beforeSwap and afterSwap (mask 0x00C0); its address carries that mask in its low 14 bits. The pool
/// manager is the base devnet's v4 PoolManager, a constant so that the getter is decided from the code alone.
contract HarborHook {
    address public constant poolManager = 0x5FbDB2315678afecb367f032d93F642f64180aa3;
    uint256 public swapsStarted;
    uint256 public swapsFinished;

    error NotPoolManager();

    modifier onlyPoolManager() {
        if (msg.sender != poolManager) revert NotPoolManager();
        _;
    }

    function beforeSwap(address, PoolKey calldata, SwapParams calldata, bytes calldata)
        external
        onlyPoolManager
        returns (bytes4, int256, uint24)
    {
        swapsStarted += 1;
        return (this.beforeSwap.selector, 0, 0);
    }

    function afterSwap(address, PoolKey calldata, SwapParams calldata, int256, bytes calldata)
        external
        onlyPoolManager
        returns (bytes4, int128)
    {
        swapsFinished += 1;
        return (this.afterSwap.selector, 0);
    }
}
