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

/// @title Token and hook of the shared-lane (MultiRole V2) example launch: one contract that is both.
/// @notice An ERC-20 with a fixed supply and the v4 hook of its own native/token pool: it enables beforeSwap and
/// afterSwap (mask 0x00C0), which count swaps and are callable only by the pool manager named in its constructor. Its
/// address carries the mask in its low 14 bits (the packer mines the CREATE2 salt). The constructor names the one
/// minter, the graph's initializer, which delivers the whole supply to the launch router once, inside the launch
/// transaction; afterwards nothing mints. `multiRoleEconomics()` declares the economics from constants: the hook
/// charges no rate on buys or sells, so it declares 0 and 0.
contract TidewaterTokenHook {
    string public constant name = "Tidewater Launch Token";
    string public constant symbol = "TIDE";
    uint8 public constant decimals = 18;
    /// @notice The whole supply in base units (1,000,000,000 tokens), delivered once.
    uint256 public constant TOTAL_SUPPLY = 1_000_000_000e18;
    /// @notice rateMode 0 is additive.
    uint8 public constant RATE_MODE = 0;
    uint32 public constant BUY_RATE_HUNDREDTHS_BIP = 0;
    uint32 public constant SELL_RATE_HUNDREDTHS_BIP = 0;
    address public constant FEE_RECIPIENT = 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266;

    address public immutable poolManager;
    address public immutable minter;
    uint256 public totalSupply;
    uint256 public swapsStarted;
    uint256 public swapsFinished;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error NotPoolManager();
    error NotMinter();
    error SupplyAlreadyDelivered();
    error SupplyMismatch(uint256 expected, uint256 given);

    modifier onlyPoolManager() {
        if (msg.sender != poolManager) revert NotPoolManager();
        _;
    }

    constructor(address poolManager_, address minter_) {
        poolManager = poolManager_;
        minter = minter_;
    }

    /// @notice The declared economics: (totalSupply, rateMode, buyRateHundredthsBip, sellRateHundredthsBip,
    /// feeRecipient), answered from constants so that the code alone decides them.
    function multiRoleEconomics() external pure returns (uint256, uint8, uint32, uint32, address) {
        return (TOTAL_SUPPLY, RATE_MODE, BUY_RATE_HUNDREDTHS_BIP, SELL_RATE_HUNDREDTHS_BIP, FEE_RECIPIENT);
    }

    /// @notice Delivers the whole supply to `to` once, called only by the minter; reverts once any supply exists.
    function deliverSupply(address to, uint256 supply) external {
        if (msg.sender != minter) revert NotMinter();
        if (totalSupply != 0) revert SupplyAlreadyDelivered();
        if (supply != TOTAL_SUPPLY) revert SupplyMismatch(TOTAL_SUPPLY, supply);
        totalSupply = supply;
        balanceOf[to] = supply;
        emit Transfer(address(0), to, supply);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        allowance[from][msg.sender] -= value;
        _move(from, to, value);
        return true;
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

    function _move(address from, address to, uint256 value) private {
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
