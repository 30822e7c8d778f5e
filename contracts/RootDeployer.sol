// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

/// @title Root deployer of the chain-4663 custom launch lane.
/// @notice Deploys the three platform root contracts in one atomic transaction, in the fixed order permitAuthority,
/// graphFactory, platformLaunchStampRouter (the order of deploymentEvidence.resultingContracts), and checks each lands
/// at the address its successors were built against. The call carries zero padding so its calldata is exactly the
/// 33,412 bytes the reference fixes for the deployment call (deploymentEvidence.calldataBytes).
contract RootDeployer {
    address public immutable owner;
    bool public deployed;

    event RootDeployed(address indexed root, bytes32 runtimeCodeHash);

    error NotOwner();
    error AlreadyDeployed();
    error RootDeploymentFailed(uint256 index, address expected, address actual);

    constructor() {
        owner = msg.sender;
    }

    function deployRoots(bytes[3] calldata initCodes, address[3] calldata expected, bytes calldata padding)
        external
        returns (address[3] memory roots)
    {
        if (msg.sender != owner) revert NotOwner();
        if (deployed) revert AlreadyDeployed();
        deployed = true;
        padding;
        for (uint256 i = 0; i < 3; i++) {
            bytes memory init = initCodes[i];
            address root;
            assembly ("memory-safe") {
                root := create(0, add(init, 0x20), mload(init))
            }
            if (root == address(0) || root != expected[i]) revert RootDeploymentFailed(i, expected[i], root);
            roots[i] = root;
            emit RootDeployed(root, root.codehash);
        }
    }
}
