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
import {BaseGraphFactory} from "./BaseGraphFactory.sol";

/// @notice The EIP-3009 pull the router performs for a launch's funding authorization.
interface IEIP3009Receive {
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;
}

/// @title Launch router of the base-layer (chain 1) V3 custom launch lane.
/// @notice Performs a whole V3 launch in one transaction, or nothing: it checks the service's permit (bound to the
/// launch intent hash, the sender, the exact value, a finalized checkpoint and an expiry at most one hour away), pulls
/// the controller's EIP-3009 funding authorization (receiveWithAuthorization, so only this router can spend it) and
/// pays it to the funding recipient, deploys the graph's init codes through the base graph factory (the hook at an
/// address whose low 14 bits equal its permission mask), has the initializer deliver the token supply (or, for the
/// router primitive, `initializerIndex` 255, expects the token's constructor to have minted it to this router),
/// initializes the native/token pool with the hook on the v4 PoolManager and places full-range liquidity. Native
/// value and tokens the pool did not take return to the controller in the same transaction. There is no initial buy
/// and no trade entry. The platform share (0 or 1,000 hundredths of a bip) is stamped in the event and in
/// `platformShareOf`; the service decides whether a launch earns it. The router keeps the liquidity position.
contract BaseLaunchRouter {
    struct LaunchParams {
        bytes32 launchIntentHash;
        uint24 lpFee;
        int24 tickSpacing;
        uint160 sqrtPriceX96;
        uint256 tokenSupply;
        uint256 liquidityNative;
        uint16 hookMask;
        uint8 tokenIndex;
        uint8 hookIndex;
        uint8 initializerIndex;
        uint32 platformShareHundredthsBip;
    }

    struct GraphTarget {
        bytes initCode;
        bytes32 salt;
    }

    struct FundingAuthorization {
        address token;
        address recipient;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        bytes signature;
    }

    struct Settlement {
        PoolKey key;
        uint160 sqrtPriceX96;
        uint256 liquidityNative;
        uint256 tokenSupply;
    }

    /// @notice The `initializerIndex` of the router primitive: the graph has no initializer.
    uint8 public constant ROUTER_PRIMITIVE = 255;
    uint32 public constant PLATFORM_SHARE_HUNDREDTHS_BIP = 1000;
    uint16 private constant ALL_HOOK_FLAGS = 0x3FFF;

    IPoolManager public immutable poolManager;
    BaseGraphFactory public immutable graphFactory;
    PermitAuthority public immutable permitAuthority;

    mapping(bytes32 launchIntentHash => bool) public launched;
    /// @notice The platform share stamped for each pool this router initialized (0 or 1,000 hundredths of a bip).
    mapping(bytes32 poolId => uint32) public platformShareOf;

    event LaunchStamped(
        bytes32 indexed launchIntentHash,
        address indexed controller,
        bytes32 indexed poolId,
        address token,
        address hook,
        uint32 platformShareHundredthsBip,
        address fundingToken,
        uint256 fundingValue
    );

    error PermitWalletMismatch(address permitted, address sender);
    error PermitValueMismatch(uint256 permitted, uint256 sent);
    error PermitIntentMismatch(bytes32 permitted, bytes32 requested);
    error LaunchAlreadyStamped(bytes32 launchIntentHash);
    error PlatformShareInvalid(uint32 platformShareHundredthsBip);
    error GraphRolesInvalid();
    error HookAddressMismatch(uint16 hookMask, uint16 addressBits);
    error FundingExceedsValue(uint256 required, uint256 sent);
    error FundingSignatureInvalid();
    error FundingRecipientZero();
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
        bytes calldata permitSignature,
        FundingAuthorization calldata funding
    ) external payable returns (address token, address hook, bytes32 poolId) {
        _checkPermit(p, permit, permitSignature);
        if (funding.token != address(0)) _pullFunding(funding);
        address[] memory deployed = _deployGraph(p, targets);
        token = deployed[p.tokenIndex];
        hook = deployed[p.hookIndex];
        if (uint16(uint160(hook)) & ALL_HOOK_FLAGS != p.hookMask) {
            revert HookAddressMismatch(p.hookMask, uint16(uint160(hook)) & ALL_HOOK_FLAGS);
        }
        if (p.initializerIndex != ROUTER_PRIMITIVE) {
            IGraphInitializer(deployed[p.initializerIndex]).initializeGraph(token, hook, address(this), p.tokenSupply);
        }
        uint256 balance = IERC20Minimal(token).balanceOf(address(this));
        if (balance < p.tokenSupply) revert TokenSupplyNotDelivered(p.tokenSupply, balance);
        poolId = _openPool(p, token, hook);
        _returnRemainders(token);
        _stamp(p, poolId, token, hook, funding);
    }

    function _stamp(
        LaunchParams calldata p,
        bytes32 poolId,
        address token,
        address hook,
        FundingAuthorization calldata funding
    ) private {
        emit LaunchStamped(
            p.launchIntentHash, msg.sender, poolId, token, hook, p.platformShareHundredthsBip, funding.token, funding.value
        );
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
        if (p.platformShareHundredthsBip != 0 && p.platformShareHundredthsBip != PLATFORM_SHARE_HUNDREDTHS_BIP) {
            revert PlatformShareInvalid(p.platformShareHundredthsBip);
        }
        if (p.liquidityNative > msg.value) revert FundingExceedsValue(p.liquidityNative, msg.value);
    }

    /// @dev The controller's signed EIP-3009 authorization pays this router, which pays the recipient at once.
    function _pullFunding(FundingAuthorization calldata f) private {
        if (f.recipient == address(0)) revert FundingRecipientZero();
        if (f.signature.length != 65) revert FundingSignatureInvalid();
        bytes32 r = bytes32(f.signature[0:32]);
        bytes32 s = bytes32(f.signature[32:64]);
        uint8 v = uint8(f.signature[64]);
        IEIP3009Receive(f.token).receiveWithAuthorization(
            msg.sender, address(this), f.value, f.validAfter, f.validBefore, f.nonce, v, r, s
        );
        if (!IERC20Minimal(f.token).transfer(f.recipient, f.value)) revert TokenTransferFailed();
    }

    function _deployGraph(LaunchParams calldata p, GraphTarget[] calldata targets) private returns (address[] memory) {
        uint256 n = targets.length;
        bool primitive = p.initializerIndex == ROUTER_PRIMITIVE;
        if (
            p.tokenIndex >= n || p.hookIndex >= n || p.tokenIndex == p.hookIndex
                || (!primitive
                    && (p.initializerIndex >= n || p.tokenIndex == p.initializerIndex || p.hookIndex == p.initializerIndex))
        ) revert GraphRolesInvalid();
        bytes[] memory codes = new bytes[](n);
        bytes32[] memory salts = new bytes32[](n);
        for (uint256 i = 0; i < n; i++) {
            codes[i] = targets[i].initCode;
            salts[i] = targets[i].salt;
        }
        return graphFactory.deploy(codes, salts);
    }

    function _openPool(LaunchParams calldata p, address token, address hook) private returns (bytes32 poolId) {
        PoolKey memory key = PoolKey(address(0), token, p.lpFee, p.tickSpacing, hook);
        poolId = keccak256(abi.encode(key));
        poolManager.initialize(key, p.sqrtPriceX96);
        platformShareOf[poolId] = p.platformShareHundredthsBip;
        if (p.liquidityNative > 0) {
            poolManager.unlock(abi.encode(Settlement(key, p.sqrtPriceX96, p.liquidityNative, p.tokenSupply)));
        }
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
