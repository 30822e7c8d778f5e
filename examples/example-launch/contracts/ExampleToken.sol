// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

/// @title Token of the spec's V4 create example.
/// @notice A fixed-supply ERC-20 deployed from its runtime code by the graph factory (so it has no constructor): the
/// graph's initializer delivers the whole supply once, inside the launch transaction; afterwards nothing mints.
contract ExampleToken {
    string public constant name = "Example Launch Token";
    string public constant symbol = "EXLT";
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error SupplyAlreadyDelivered();

    /// @notice Delivers the fixed supply once; reverts once any supply exists.
    function deliverSupply(address to, uint256 supply) external {
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
