// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {FullMath} from "@uniswap/v4-core/src/libraries/FullMath.sol";
import {
    IPoolManager,
    PoolKey,
    ModifyLiquidityParams,
    IERC20Minimal,
    IGraphInitializer
} from "../LaunchStampRouter.sol";
import {PermitAuthority} from "../PermitAuthority.sol";
import {BaseGraphFactory} from "../base/BaseGraphFactory.sol";

/// @title Launch router of the chain-4663 shared (MultiRole V2) custom launch lane.
/// @notice Performs a whole shared-lane launch in one transaction, or nothing: it checks the service's permit (bound to
/// the launch intent hash, the sender, the exact value, a finalized checkpoint and an expiry at most one hour away; the
/// lane's own permit authority, so a permit of another lane never passes), deploys the graph's init codes through the
/// lane's graph factory, takes the token_hook (one contract that is both the ERC-20 token and the pool's v4 hook, at an
/// address whose low 14 bits equal its permission mask), has the initializer deliver the token supply to this router,
/// initializes the native/token pool whose currency1 and hooks are both the token_hook on the v4 PoolManager and places
/// full-range liquidity. Native value and tokens the pool did not take return to the controller in the same
/// transaction. There is no initial buy, no trade entry and no platform fee. The router keeps the liquidity position.
contract MultiRoleLaunchRouter {
    struct LaunchParams {
        bytes32 launchIntentHash;
        uint24 lpFee;
        int24 tickSpacing;
        uint160 sqrtPriceX96;
        uint256 tokenSupply;
        uint256 liquidityNative;
        uint16 hookMask;
        uint8 tokenHookIndex;
        uint8 initializerIndex;
    }

    struct GraphTarget {
        bytes initCode;
        bytes32 salt;
    }

    struct Settlement {
        PoolKey key;
        uint160 sqrtPriceX96;
        uint256 liquidityNative;
        uint256 tokenSupply;
    }

    uint16 private constant ALL_HOOK_FLAGS = 0x3FFF;

    IPoolManager public immutable poolManager;
    BaseGraphFactory public immutable graphFactory;
    PermitAuthority public immutable permitAuthority;

    mapping(bytes32 launchIntentHash => bool) public launched;

    event MultiRoleLaunchStamped(
        bytes32 indexed launchIntentHash, address indexed controller, bytes32 indexed poolId, address tokenHook
    );

    error PermitWalletMismatch(address permitted, address sender);
    error PermitValueMismatch(uint256 permitted, uint256 sent);
    error PermitIntentMismatch(bytes32 permitted, bytes32 requested);
    error LaunchAlreadyStamped(bytes32 launchIntentHash);
    error GraphRolesInvalid();
    error HookAddressMismatch(uint16 hookMask, uint16 addressBits);
    error LiquidityExceedsValue(uint256 required, uint256 sent);
    error TokenSupplyNotDelivered(uint256 expected, uint256 balance);
    error LiquidityExceedsBudget(uint256 required, uint256 budget);
    error LiquidityZero();
    error NotPoolManager();
    error NativeTransferFailed();
    error TokenTransferFailed();

    constructor(IPoolManager poolManager_, BaseGraphFactory graphFactory_, PermitAuthority permitAuthority_) {
        poolManager = poolManager_;
        graphFactory = graphFactory_;
        permitAuthority = permitAuthority_;
    }

    function launch(
        LaunchParams calldata p,
        GraphTarget[] calldata targets,
        PermitAuthority.LaunchPermit calldata permit,
        bytes calldata permitSignature
    ) external payable returns (address tokenHook, bytes32 poolId) {
        _checkPermit(p, permit, permitSignature);
        address[] memory deployed = _deployGraph(p, targets);
        tokenHook = deployed[p.tokenHookIndex];
        uint16 addressBits = uint16(uint160(tokenHook)) & ALL_HOOK_FLAGS;
        if (addressBits != p.hookMask) revert HookAddressMismatch(p.hookMask, addressBits);
        IGraphInitializer(deployed[p.initializerIndex]).initializeGraph(tokenHook, tokenHook, address(this), p.tokenSupply);
        uint256 balance = IERC20Minimal(tokenHook).balanceOf(address(this));
        if (balance < p.tokenSupply) revert TokenSupplyNotDelivered(p.tokenSupply, balance);
        poolId = _openPool(p, tokenHook);
        _returnRemainders(tokenHook);
        emit MultiRoleLaunchStamped(p.launchIntentHash, msg.sender, poolId, tokenHook);
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
        if (p.liquidityNative > msg.value) revert LiquidityExceedsValue(p.liquidityNative, msg.value);
    }

    function _deployGraph(LaunchParams calldata p, GraphTarget[] calldata targets) private returns (address[] memory) {
        uint256 n = targets.length;
        if (p.tokenHookIndex >= n || p.initializerIndex >= n || p.tokenHookIndex == p.initializerIndex) {
            revert GraphRolesInvalid();
        }
        bytes[] memory codes = new bytes[](n);
        bytes32[] memory salts = new bytes32[](n);
        for (uint256 i = 0; i < n; i++) {
            codes[i] = targets[i].initCode;
            salts[i] = targets[i].salt;
        }
        return graphFactory.deploy(codes, salts);
    }

    /// @dev The pool's currency1 and its hooks are the one token_hook contract.
    function _openPool(LaunchParams calldata p, address tokenHook) private returns (bytes32 poolId) {
        PoolKey memory key = PoolKey(address(0), tokenHook, p.lpFee, p.tickSpacing, tokenHook);
        poolId = keccak256(abi.encode(key));
        poolManager.initialize(key, p.sqrtPriceX96);
        if (p.liquidityNative > 0) {
            poolManager.unlock(abi.encode(Settlement(key, p.sqrtPriceX96, p.liquidityNative, p.tokenSupply)));
        }
    }

    /// @dev Native value and tokens the launch did not consume go back to the controller.
    function _returnRemainders(address tokenHook) private {
        uint256 nativeLeft = address(this).balance;
        if (nativeLeft > 0) {
            (bool ok,) = msg.sender.call{value: nativeLeft}("");
            if (!ok) revert NativeTransferFailed();
        }
        uint256 tokensLeft = IERC20Minimal(tokenHook).balanceOf(address(this));
        if (tokensLeft > 0 && !IERC20Minimal(tokenHook).transfer(msg.sender, tokensLeft)) revert TokenTransferFailed();
    }

    /// @notice PoolManager callback of the launch's unlock: full-range liquidity, settled in tokens and native.
    function unlockCallback(bytes calldata data) external returns (bytes memory) {
        if (msg.sender != address(poolManager)) revert NotPoolManager();
        Settlement memory s = abi.decode(data, (Settlement));
        (uint256 nativeOwed, uint256 tokenOwed) = _addFullRangeLiquidity(s);
        poolManager.sync(s.key.currency1);
        if (!IERC20Minimal(s.key.currency1).transfer(address(poolManager), tokenOwed)) revert TokenTransferFailed();
        poolManager.settle();
        if (nativeOwed > 0) poolManager.settle{value: nativeOwed}();
        return "";
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
        nativeOwed = uint256(uint128(-int128(callerDelta >> 128)));
        tokenOwed = uint256(uint128(-int128(callerDelta)));
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
}
