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
    function burn(address from, uint256 id, uint256 amount) external;
    function balanceOf(address owner, uint256 id) external view returns (uint256);
}

interface IERC20Minimal {
    function balanceOf(address owner) external view returns (uint256);
    function transfer(address to, uint256 value) external returns (bool);
    function transferFrom(address from, address to, uint256 value) external returns (bool);
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
/// PoolManager, places full-range liquidity and performs the atomic initial buy with a positive minimum output paying
/// the tokens to the launch controller. Native value the launch does not consume (reserves, other allocations,
/// rounding remainders) and tokens the pool did not take return to the controller in the same transaction. The router
/// keeps the liquidity position (it has no function to remove it).
///
/// Native20 platform fee (launch-transport.md What the service does 6). The router is also the platform's trade entry
/// of every pool it stamped: `buy` (exact native in) and `sell` (exact tokens in), each one exact-input swap in one
/// PoolManager unlock. On the launch's initial buy and on every successful `buy` and `sell` it charges 20 bps of the
/// gross native amount, rounded up to the next wei: for a buy the native sent in (the pool swaps the rest), for a sell
/// the native the pool pays out before the fee (the seller receives the rest). The fee accrues as a PoolManager native
/// claim (ERC-6909 id 0) minted to this router, which mints such claims for nothing else: every native claim it holds is
/// the platform's. `settlePlatformFees`, callable by anyone, burns them all and pays the native to the one fixed
/// `platformFeeRecipient` set at deployment; no caller can redirect it and the router has no owner. The pool's
/// liquidity-provider fee and whatever the project's hook takes are charged inside the swap, in addition.
///
/// What is not charged: the platform enforces the fee only on the path through this router. The pool's hook is
/// project-owned and the pool key carries no platform contract, so a swap sent to the PoolManager by any other router
/// or contract reaches the pool without passing here and pays no platform fee.
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

    /// @dev One buy or sell inside an unlock: `amountIn` is the gross native (buy) or the exact tokens in (sell).
    struct Trade {
        PoolKey key;
        bool isBuy;
        address payer;
        address recipient;
        uint256 amountIn;
        uint256 minOut;
    }

    uint256 public constant PLATFORM_FEE_BPS = 20;
    uint16 private constant ALL_HOOK_FLAGS = 0x3FFF;
    /// @dev The native currency's ERC-6909 claim id on the PoolManager (currency address 0).
    uint256 private constant NATIVE_CLAIM_ID = 0;
    uint8 private constant ACTION_LAUNCH = 0;
    uint8 private constant ACTION_TRADE = 1;
    uint8 private constant ACTION_SETTLE_FEES = 2;

    IPoolManager public immutable poolManager;
    GraphFactory public immutable graphFactory;
    PermitAuthority public immutable permitAuthority;
    address public immutable platformFeeRecipient;

    mapping(bytes32 launchIntentHash => bool) public launched;
    /// @notice Pools this router initialized in a launch: the only pools `buy` and `sell` trade.
    mapping(bytes32 poolId => bool) public stampedPools;

    event LaunchStamped(
        bytes32 indexed launchIntentHash,
        address indexed controller,
        bytes32 indexed poolId,
        address token,
        address hook,
        uint256 tokensOut,
        uint256 platformFee
    );
    /// @notice One buy or sell through the router: the gross native amount, the tokens in or out and the fee claimed.
    event Traded(
        bytes32 indexed poolId,
        address indexed trader,
        address indexed recipient,
        bool isBuy,
        uint256 grossNative,
        uint256 tokens,
        uint256 platformFee
    );
    /// @notice Accrued platform fee claims burned and paid to the fixed recipient; `caller` triggered it.
    event PlatformFeesSettled(address indexed recipient, address indexed caller, uint256 amount);

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
    error PoolNotStamped(bytes32 poolId);
    error RecipientZero();
    error TradeTooSmall(uint256 amountIn);
    error SwapNotFilled(uint256 specified, uint256 filled);
    error TradeBelowMinimum(uint256 amountOut, uint256 minOut);

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

    /// @notice Platform fees accrued and not yet settled: the router's PoolManager native claims.
    function accruedPlatformFees() public view returns (uint256) {
        return poolManager.balanceOf(address(this), NATIVE_CLAIM_ID);
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

    /// @notice Buys tokens of a stamped pool with all the native sent: 20 bps of it (rounded up) is the platform fee,
    /// the rest is swapped exact-input and must fill completely; the tokens go to `recipient`. Reverts unless at least
    /// `minTokensOut` (and at least one) token unit comes out.
    function buy(PoolKey calldata key, uint256 minTokensOut, address recipient)
        external
        payable
        returns (uint256 tokensOut, uint256 platformFee)
    {
        return _trade(Trade(key, true, msg.sender, recipient, msg.value, minTokensOut));
    }

    /// @notice Sells exactly `tokensIn` tokens of a stamped pool (pulled from the caller, who approves this router):
    /// the pool's native output is the gross amount, 20 bps of it (rounded up) is the platform fee and the rest goes
    /// to `recipient`. Reverts unless at least `minNativeOut` (and at least one wei) reaches the recipient.
    function sell(PoolKey calldata key, uint256 tokensIn, uint256 minNativeOut, address recipient)
        external
        returns (uint256 nativeOut, uint256 platformFee)
    {
        return _trade(Trade(key, false, msg.sender, recipient, tokensIn, minNativeOut));
    }

    /// @notice Pays every accrued platform fee to the fixed recipient: burns the router's native claims and takes
    /// the native to `platformFeeRecipient`. Anyone may call it; with nothing accrued it pays nothing.
    function settlePlatformFees() external returns (uint256 amount) {
        amount = accruedPlatformFees();
        if (amount == 0) return 0;
        poolManager.unlock(abi.encode(ACTION_SETTLE_FEES, abi.encode(amount)));
        emit PlatformFeesSettled(platformFeeRecipient, msg.sender, amount);
    }

    function _trade(Trade memory t) private returns (uint256 amountOut, uint256 platformFee) {
        bytes32 poolId = keccak256(abi.encode(t.key));
        if (!stampedPools[poolId]) revert PoolNotStamped(poolId);
        if (t.recipient == address(0)) revert RecipientZero();
        uint256 grossNative;
        (amountOut, platformFee, grossNative) =
            abi.decode(poolManager.unlock(abi.encode(ACTION_TRADE, abi.encode(t))), (uint256, uint256, uint256));
        emit Traded(poolId, t.payer, t.recipient, t.isBuy, grossNative, t.isBuy ? amountOut : t.amountIn, platformFee);
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
        stampedPools[poolId] = true;
        Settlement memory s = Settlement({
            key: key,
            controller: msg.sender,
            sqrtPriceX96: p.sqrtPriceX96,
            liquidityNative: p.liquidityNative,
            tokenSupply: p.tokenSupply,
            initialBuyNative: p.initialBuyNative,
            minTokenOut: p.minTokenOut
        });
        (uint256 tokensOut, uint256 fee) =
            abi.decode(poolManager.unlock(abi.encode(ACTION_LAUNCH, abi.encode(s))), (uint256, uint256));
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

    /// @notice PoolManager callback of the router's own unlocks: a launch, a trade or the fee settlement.
    function unlockCallback(bytes calldata data) external returns (bytes memory) {
        if (msg.sender != address(poolManager)) revert NotPoolManager();
        (uint8 action, bytes memory payload) = abi.decode(data, (uint8, bytes));
        if (action == ACTION_LAUNCH) return _settleLaunch(abi.decode(payload, (Settlement)));
        if (action == ACTION_TRADE) return _settleTrade(abi.decode(payload, (Trade)));
        uint256 amount = abi.decode(payload, (uint256));
        // Burning the claims credits the router; the credit is taken to the fixed recipient only.
        poolManager.burn(address(this), NATIVE_CLAIM_ID, amount);
        poolManager.take(address(0), platformFeeRecipient, amount);
        return "";
    }

    /// @dev Liquidity, the initial buy and its fee claim, settled in one unlock.
    function _settleLaunch(Settlement memory s) private returns (bytes memory) {
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
            (tokensOut, fee) = _swapBuy(s.key, s.initialBuyNative, s.controller);
            if (tokensOut < s.minTokenOut) revert InitialBuyBelowMinimum(tokensOut, s.minTokenOut);
            nativeOwed += s.initialBuyNative;
        }
        if (nativeOwed > 0) poolManager.settle{value: nativeOwed}();
        return abi.encode(tokensOut, fee);
    }

    /// @dev One buy or sell with its fee claim; returns (amount out, platform fee, gross native).
    function _settleTrade(Trade memory t) private returns (bytes memory) {
        uint256 amountOut;
        uint256 fee;
        uint256 grossNative;
        if (t.isBuy) {
            (amountOut, fee) = _swapBuy(t.key, t.amountIn, t.recipient);
            grossNative = t.amountIn;
            poolManager.settle{value: grossNative}();
        } else {
            (amountOut, fee, grossNative) = _swapSell(t);
        }
        if (amountOut == 0 || amountOut < t.minOut) revert TradeBelowMinimum(amountOut, t.minOut);
        return abi.encode(amountOut, fee, grossNative);
    }

    /// @dev Exact-input buy of `grossNative`: the fee is claimed, the rest swapped and filled completely, the tokens
    /// taken to `recipient`. The caller settles the gross native (swap input plus the claim's backing) afterwards.
    function _swapBuy(PoolKey memory key, uint256 grossNative, address recipient)
        private
        returns (uint256 tokensOut, uint256 fee)
    {
        fee = platformFeeOf(grossNative);
        uint256 net = grossNative - fee;
        if (net == 0) revert TradeTooSmall(grossNative);
        int256 delta = poolManager.swap(key, SwapParams(true, -int256(net), TickMath.MIN_SQRT_PRICE + 1), "");
        int128 native = _amount0(delta);
        int128 tokens = _amount1(delta);
        // A partial fill (or a hook moving the input) would leave the fee priced on native that was not swapped.
        if (native > 0 || tokens < 0 || uint256(uint128(-native)) != net) {
            revert SwapNotFilled(net, native > 0 ? 0 : uint256(uint128(-native)));
        }
        tokensOut = uint256(uint128(tokens));
        if (tokensOut > 0) poolManager.take(key.currency1, recipient, tokensOut);
        poolManager.mint(address(this), NATIVE_CLAIM_ID, fee);
    }

    /// @dev Exact-input sell: the seller's tokens pay the pool, the gross native output is split into the fee claim and
    /// the recipient's native.
    function _swapSell(Trade memory t) private returns (uint256 nativeOut, uint256 fee, uint256 grossNative) {
        if (t.amountIn == 0) revert TradeTooSmall(0);
        int256 delta =
            poolManager.swap(t.key, SwapParams(false, -int256(t.amountIn), TickMath.MAX_SQRT_PRICE - 1), "");
        int128 native = _amount0(delta);
        int128 tokens = _amount1(delta);
        if (native < 0 || tokens > 0 || uint256(uint128(-tokens)) != t.amountIn) {
            revert SwapNotFilled(t.amountIn, tokens > 0 ? 0 : uint256(uint128(-tokens)));
        }
        poolManager.sync(t.key.currency1);
        if (!IERC20Minimal(t.key.currency1).transferFrom(t.payer, address(poolManager), t.amountIn)) {
            revert TokenTransferFailed();
        }
        poolManager.settle();
        grossNative = uint256(uint128(native));
        fee = platformFeeOf(grossNative);
        nativeOut = grossNative - fee;
        if (nativeOut > 0) poolManager.take(address(0), t.recipient, nativeOut);
        if (fee > 0) poolManager.mint(address(this), NATIVE_CLAIM_ID, fee);
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
