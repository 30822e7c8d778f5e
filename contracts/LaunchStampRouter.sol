// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {FullMath} from "@uniswap/v4-core/src/libraries/FullMath.sol";
import {PermitAuthority} from "./PermitAuthority.sol";
import {GraphFactory} from "./GraphFactory.sol";

struct PoolKey {
    address currency0;
    address currency1;
    uint24 fee;
    int24 tickSpacing;
    address hooks;
}

struct ModifyLiquidityParams {
    int24 tickLower;
    int24 tickUpper;
    int256 liquidityDelta;
    bytes32 salt;
}

struct SwapParams {
    bool zeroForOne;
    int256 amountSpecified;
    uint160 sqrtPriceLimitX96;
}

interface IPoolManager {
    function initialize(PoolKey calldata key, uint160 sqrtPriceX96) external returns (int24 tick);
    function unlock(bytes calldata data) external returns (bytes memory);
    function modifyLiquidity(PoolKey calldata key, ModifyLiquidityParams calldata params, bytes calldata hookData)
        external
        returns (int256 callerDelta, int256 feesAccrued);
    function swap(PoolKey calldata key, SwapParams calldata params, bytes calldata hookData)
        external
        returns (int256 swapDelta);
    function settle() external payable returns (uint256 paid);
    function sync(address currency) external;
    function take(address currency, address to, uint256 amount) external;
    function mint(address to, uint256 id, uint256 amount) external;
}

interface IERC20Minimal {
    function balanceOf(address owner) external view returns (uint256);
    function transfer(address to, uint256 value) external returns (bool);
}

/// @notice What the router asks of a graph's initializer: deliver `supply` tokens of `token` to `recipient`, once.
interface IGraphInitializer {
    function initializeGraph(address token, address hook, address recipient, uint256 supply) external;
}

/// @title Platform launch stamp router of the chain-4663 custom launch lane.
/// @notice Performs a whole launch in one transaction, or nothing: it checks the service's permit (bound to the launch
/// intent hash, the sender, the exact value, a finalized checkpoint and an expiry at most one hour away), deploys the
/// graph through the graph factory (the hook at an address whose low 14 bits equal its permission mask), has the
/// initializer deliver the token supply, initializes the native/token pool with the hook on the canonical v4
/// PoolManager, places full-range liquidity, performs the atomic initial buy with a positive minimum output paying
/// the tokens to the launch controller, and charges the 20 bps platform fee (of the gross buy amount, rounded up) as a
/// PoolManager native claim of the one fixed fee recipient. Native value the launch does not consume (reserves,
/// other allocations, rounding remainders) and tokens the pool did not take return to the controller in the same
/// transaction. The router keeps the liquidity position (it has no function to remove it).
/// launch-transport.md What the service does 5-7; CHAIN-NOTES.md (hook permissions).
contract LaunchStampRouter {
    struct LaunchParams {
        bytes32 launchIntentHash;
        uint24 lpFee;
        int24 tickSpacing;
        uint160 sqrtPriceX96;
        uint256 tokenSupply;
        uint256 liquidityNative;
        uint256 initialBuyNative;
        uint256 minTokenOut;
        uint16 hookMask;
        uint8 tokenIndex;
        uint8 hookIndex;
        uint8 initializerIndex;
    }

    struct GraphTarget {
        bytes runtimeCode;
        bytes32 salt;
    }

    struct Settlement {
        PoolKey key;
        address controller;
        uint160 sqrtPriceX96;
        uint256 liquidityNative;
        uint256 tokenSupply;
        uint256 initialBuyNative;
        uint256 minTokenOut;
    }

    uint256 public constant PLATFORM_FEE_BPS = 20;
    uint16 private constant ALL_HOOK_FLAGS = 0x3FFF;

    IPoolManager public immutable poolManager;
    GraphFactory public immutable graphFactory;
    PermitAuthority public immutable permitAuthority;
    address public immutable platformFeeRecipient;

    mapping(bytes32 launchIntentHash => bool) public launched;

    event LaunchStamped(
        bytes32 indexed launchIntentHash,
        address indexed controller,
        bytes32 indexed poolId,
        address token,
        address hook,
        uint256 tokensOut,
        uint256 platformFee
    );

    error PermitWalletMismatch(address permitted, address sender);
    error PermitValueMismatch(uint256 permitted, uint256 sent);
    error PermitIntentMismatch(bytes32 permitted, bytes32 requested);
    error LaunchAlreadyStamped(bytes32 launchIntentHash);
    error GraphRolesInvalid();
    error HookAddressMismatch(uint16 hookMask, uint16 addressBits);
    error FundingExceedsValue(uint256 required, uint256 sent);
    error TokenSupplyNotDelivered(uint256 expected, uint256 balance);
    error MinimumOutputZero();
    error InitialBuyBelowMinimum(uint256 tokensOut, uint256 minTokenOut);
    error LiquidityExceedsBudget(uint256 required, uint256 budget);
    error LiquidityZero();
    error NotPoolManager();
    error NativeTransferFailed();
    error TokenTransferFailed();

    constructor(IPoolManager poolManager_, GraphFactory graphFactory_, PermitAuthority permitAuthority_, address feeRecipient_) {
        poolManager = poolManager_;
        graphFactory = graphFactory_;
        permitAuthority = permitAuthority_;
        platformFeeRecipient = feeRecipient_;
    }

    /// @notice The platform fee of a gross native amount: 20 bps, rounded up to the next wei.
    function platformFeeOf(uint256 grossNative) public pure returns (uint256) {
        return (grossNative * PLATFORM_FEE_BPS + 9_999) / 10_000;
    }

    function launch(
        LaunchParams calldata p,
        GraphTarget[] calldata targets,
        PermitAuthority.LaunchPermit calldata permit,
        bytes calldata signature
    ) external payable returns (address token, address hook, bytes32 poolId) {
        _checkPermit(p, permit, signature);
        address[] memory deployed = _deployGraph(p, targets);
        token = deployed[p.tokenIndex];
        hook = deployed[p.hookIndex];
        if (uint16(uint160(hook)) & ALL_HOOK_FLAGS != p.hookMask) {
            revert HookAddressMismatch(p.hookMask, uint16(uint160(hook)) & ALL_HOOK_FLAGS);
        }
        IGraphInitializer(deployed[p.initializerIndex]).initializeGraph(token, hook, address(this), p.tokenSupply);
        uint256 balance = IERC20Minimal(token).balanceOf(address(this));
        if (balance < p.tokenSupply) revert TokenSupplyNotDelivered(p.tokenSupply, balance);
        poolId = _openPool(p, token, hook);
        _returnRemainders(token);
    }

    function _checkPermit(LaunchParams calldata p, PermitAuthority.LaunchPermit calldata permit, bytes calldata signature)
        private
    {
        permitAuthority.check(permit, signature);
        if (permit.wallet != msg.sender) revert PermitWalletMismatch(permit.wallet, msg.sender);
        if (permit.value != msg.value) revert PermitValueMismatch(permit.value, msg.value);
        if (permit.launchIntentHash != p.launchIntentHash) {
            revert PermitIntentMismatch(permit.launchIntentHash, p.launchIntentHash);
        }
        if (launched[p.launchIntentHash]) revert LaunchAlreadyStamped(p.launchIntentHash);
        launched[p.launchIntentHash] = true;
        if (p.liquidityNative + p.initialBuyNative > msg.value) {
            revert FundingExceedsValue(p.liquidityNative + p.initialBuyNative, msg.value);
        }
        if (p.initialBuyNative > 0 && p.minTokenOut == 0) revert MinimumOutputZero();
    }

    function _openPool(LaunchParams calldata p, address token, address hook) private returns (bytes32 poolId) {
        PoolKey memory key = PoolKey(address(0), token, p.lpFee, p.tickSpacing, hook);
        poolId = keccak256(abi.encode(key));
        poolManager.initialize(key, p.sqrtPriceX96);
        Settlement memory s = Settlement({
            key: key,
            controller: msg.sender,
            sqrtPriceX96: p.sqrtPriceX96,
            liquidityNative: p.liquidityNative,
            tokenSupply: p.tokenSupply,
            initialBuyNative: p.initialBuyNative,
            minTokenOut: p.minTokenOut
        });
        (uint256 tokensOut, uint256 fee) = abi.decode(poolManager.unlock(abi.encode(s)), (uint256, uint256));
        emit LaunchStamped(p.launchIntentHash, msg.sender, poolId, token, hook, tokensOut, fee);
    }

    /// @dev Native value and tokens the launch did not consume go back to the controller.
    function _returnRemainders(address token) private {
        uint256 nativeLeft = address(this).balance;
        if (nativeLeft > 0) {
            (bool ok,) = msg.sender.call{value: nativeLeft}("");
            if (!ok) revert NativeTransferFailed();
        }
        uint256 tokensLeft = IERC20Minimal(token).balanceOf(address(this));
        if (tokensLeft > 0 && !IERC20Minimal(token).transfer(msg.sender, tokensLeft)) revert TokenTransferFailed();
    }

    /// @notice PoolManager callback: liquidity, the initial buy and the fee claim, settled in one unlock.
    function unlockCallback(bytes calldata data) external returns (bytes memory) {
        if (msg.sender != address(poolManager)) revert NotPoolManager();
        Settlement memory s = abi.decode(data, (Settlement));
        uint256 nativeOwed;
        if (s.liquidityNative > 0) {
            uint256 tokenOwed;
            (nativeOwed, tokenOwed) = _addFullRangeLiquidity(s);
            // Tokens first: the pool manager pays the buy's output from the tokens it holds.
            poolManager.sync(s.key.currency1);
            if (!IERC20Minimal(s.key.currency1).transfer(address(poolManager), tokenOwed)) revert TokenTransferFailed();
            poolManager.settle();
        }
        uint256 tokensOut;
        uint256 fee;
        if (s.initialBuyNative > 0) {
            fee = platformFeeOf(s.initialBuyNative);
            int256 swapDelta = poolManager.swap(
                s.key,
                SwapParams(true, -int256(s.initialBuyNative - fee), TickMath.MIN_SQRT_PRICE + 1),
                ""
            );
            nativeOwed += uint256(uint128(-_amount0(swapDelta)));
            tokensOut = uint256(uint128(_amount1(swapDelta)));
            if (tokensOut < s.minTokenOut) revert InitialBuyBelowMinimum(tokensOut, s.minTokenOut);
            poolManager.take(s.key.currency1, s.controller, tokensOut);
            // The fee accrues as the fixed recipient's PoolManager claim on the native currency (id 0).
            poolManager.mint(platformFeeRecipient, 0, fee);
            nativeOwed += fee;
        }
        if (nativeOwed > 0) poolManager.settle{value: nativeOwed}();
        return abi.encode(tokensOut, fee);
    }

    function _deployGraph(LaunchParams calldata p, GraphTarget[] calldata targets) private returns (address[] memory) {
        uint256 n = targets.length;
        if (
            p.tokenIndex >= n || p.hookIndex >= n || p.initializerIndex >= n || p.tokenIndex == p.hookIndex
                || p.tokenIndex == p.initializerIndex || p.hookIndex == p.initializerIndex
        ) revert GraphRolesInvalid();
        bytes[] memory codes = new bytes[](n);
        bytes32[] memory salts = new bytes32[](n);
        for (uint256 i = 0; i < n; i++) {
            codes[i] = targets[i].runtimeCode;
            salts[i] = targets[i].salt;
        }
        return graphFactory.deploy(codes, salts);
    }

    function _addFullRangeLiquidity(Settlement memory s) private returns (uint256 nativeOwed, uint256 tokenOwed) {
        int24 tickLower = (TickMath.MIN_TICK / s.key.tickSpacing) * s.key.tickSpacing;
        int24 tickUpper = (TickMath.MAX_TICK / s.key.tickSpacing) * s.key.tickSpacing;
        uint160 sqrtA = TickMath.getSqrtPriceAtTick(tickLower);
        uint160 sqrtB = TickMath.getSqrtPriceAtTick(tickUpper);
        uint256 liquidity = _liquidityForAmounts(s.sqrtPriceX96, sqrtA, sqrtB, s.liquidityNative, s.tokenSupply);
        if (liquidity == 0) revert LiquidityZero();
        (int256 callerDelta,) = poolManager.modifyLiquidity(
            s.key, ModifyLiquidityParams(tickLower, tickUpper, int256(liquidity), bytes32(0)), ""
        );
        nativeOwed = uint256(uint128(-_amount0(callerDelta)));
        tokenOwed = uint256(uint128(-_amount1(callerDelta)));
        if (nativeOwed > s.liquidityNative) revert LiquidityExceedsBudget(nativeOwed, s.liquidityNative);
    }

    function _liquidityForAmounts(uint160 sqrtP, uint160 sqrtA, uint160 sqrtB, uint256 amount0, uint256 amount1)
        private
        pure
        returns (uint256)
    {
        if (sqrtP <= sqrtA || sqrtP >= sqrtB) return 0;
        uint256 l0 = FullMath.mulDiv(amount0, FullMath.mulDiv(sqrtP, sqrtB, 1 << 96), sqrtB - sqrtP);
        uint256 l1 = FullMath.mulDiv(amount1, 1 << 96, sqrtP - sqrtA);
        uint256 l = l0 < l1 ? l0 : l1;
        return l > uint256(uint128(type(int128).max)) ? uint256(uint128(type(int128).max)) : l;
    }

    function _amount0(int256 delta) private pure returns (int128) {
        return int128(delta >> 128);
    }

    function _amount1(int256 delta) private pure returns (int128) {
        return int128(delta);
    }
}
