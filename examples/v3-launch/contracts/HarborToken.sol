// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

/// @title Token of the base-layer (V3) example launch.
/// @notice A fixed-supply ERC-20 deployed from its init code by the base graph factory. Its constructor names the one
/// minter, the graph's initializer (its CREATE2 address, which the packer predicts); the initializer delivers the
/// whole supply to the launch router once, inside the launch transaction, and afterwards nothing mints.
contract HarborToken {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    address public immutable minter;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error NotMinter();
    error SupplyAlreadyDelivered();

    constructor(string memory name_, string memory symbol_, address minter_) {
        name = name_;
        symbol = symbol_;
        minter = minter_;
    }

    /// @notice Delivers the fixed supply once, called only by the minter; reverts once any supply exists.
    function deliverSupply(address to, uint256 supply) external {
        if (msg.sender != minter) revert NotMinter();
        if (totalSupply != 0) revert SupplyAlreadyDelivered();
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

    function _move(address from, address to, uint256 value) private {
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
