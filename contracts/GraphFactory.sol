// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

/// @title Graph factory of the chain-4663 custom launch lane.
/// @notice Deploys a launch graph's targets from their exact runtime code with CREATE2. Each target's init code is a
/// 12-byte loader followed by the runtime code, so the deployed code is byte-for-byte the code the request binds and
/// the server scanned. The CREATE2 salt is keccak256(abi.encode(caller, targetSalt)): addresses depend on the caller,
/// so nobody can occupy a launch's addresses by calling first. A hook's salt is mined by the packer so that the
/// hook's address carries its permission mask in its low 14 bits (v4-core Hooks.sol).
contract GraphFactory {
    uint256 public constant MAX_RUNTIME_BYTES = 24576;

    event GraphTargetDeployed(address indexed caller, bytes32 indexed salt, address target, bytes32 runtimeCodeHash);

    error RuntimeCodeEmpty(uint256 index);
    error RuntimeCodeTooLarge(uint256 index, uint256 length);
    error TargetDeploymentFailed(uint256 index);
    error LengthMismatch();

    /// @notice The init code the factory deploys for `runtimeCode`.
    function initCodeOf(bytes calldata runtimeCode) public pure returns (bytes memory) {
        // PUSH2 <len> DUP1 PUSH1 0x0c PUSH1 0 CODECOPY PUSH1 0 RETURN, then the runtime code.
        return abi.encodePacked(hex"61", uint16(runtimeCode.length), hex"80600c6000396000f3", runtimeCode);
    }

    /// @notice The address `caller` obtains for `runtimeCode` at `salt`.
    function predict(address caller, bytes32 salt, bytes calldata runtimeCode) external view returns (address) {
        bytes32 effective = keccak256(abi.encode(caller, salt));
        bytes32 hash = keccak256(abi.encodePacked(bytes1(0xff), address(this), effective, keccak256(initCodeOf(runtimeCode))));
        return address(uint160(uint256(hash)));
    }

    /// @notice Deploys every target; reverts if any deployment fails or yields other code.
    function deploy(bytes[] calldata runtimeCodes, bytes32[] calldata salts) external returns (address[] memory targets) {
        if (runtimeCodes.length != salts.length) revert LengthMismatch();
        targets = new address[](runtimeCodes.length);
        for (uint256 i = 0; i < runtimeCodes.length; i++) {
            bytes calldata code = runtimeCodes[i];
            if (code.length == 0) revert RuntimeCodeEmpty(i);
            if (code.length > MAX_RUNTIME_BYTES) revert RuntimeCodeTooLarge(i, code.length);
            bytes memory init = initCodeOf(code);
            bytes32 effective = keccak256(abi.encode(msg.sender, salts[i]));
            address target;
            assembly ("memory-safe") {
                target := create2(0, add(init, 0x20), mload(init), effective)
            }
            bytes32 codeHash = keccak256(code);
            if (target == address(0) || target.codehash != codeHash) revert TargetDeploymentFailed(i);
            targets[i] = target;
            emit GraphTargetDeployed(msg.sender, salts[i], target, codeHash);
        }
    }
}
