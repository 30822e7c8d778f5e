// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

/// @title Graph factory of the base-layer (chain 1) custom launch lane.
/// @notice Deploys a launch graph's targets from their exact init code (creation code followed by the ABI-encoded
/// constructor arguments) with CREATE2. The CREATE2 salt is keccak256(abi.encode(caller, targetSalt)): addresses
/// depend on the caller, so nobody can occupy a launch's addresses by calling first. A hook's salt is mined by the
/// packer so that the hook's address carries its permission mask in its low 14 bits (v4-core Hooks.sol).
contract BaseGraphFactory {
    event GraphTargetDeployed(
        address indexed caller, bytes32 indexed salt, address target, bytes32 initCodeHash, bytes32 runtimeCodeHash
    );

    error InitCodeEmpty(uint256 index);
    error TargetDeploymentFailed(uint256 index);
    error LengthMismatch();

    /// @notice The address `caller` obtains for init code hashing to `initCodeHash` at `salt`.
    function predict(address caller, bytes32 salt, bytes32 initCodeHash) public view returns (address) {
        bytes32 effective = keccak256(abi.encode(caller, salt));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), effective, initCodeHash)))));
    }

    /// @notice Deploys every target; reverts if any init code is empty or any deployment fails or leaves no code.
    function deploy(bytes[] calldata initCodes, bytes32[] calldata salts) external returns (address[] memory targets) {
        if (initCodes.length != salts.length) revert LengthMismatch();
        targets = new address[](initCodes.length);
        for (uint256 i = 0; i < initCodes.length; i++) {
            bytes memory init = initCodes[i];
            if (init.length == 0) revert InitCodeEmpty(i);
            bytes32 effective = keccak256(abi.encode(msg.sender, salts[i]));
            address target;
            assembly ("memory-safe") {
                target := create2(0, add(init, 0x20), mload(init), effective)
            }
            if (target == address(0) || target.code.length == 0) revert TargetDeploymentFailed(i);
            targets[i] = target;
            emit GraphTargetDeployed(msg.sender, salts[i], target, keccak256(init), target.codehash);
        }
    }
}
