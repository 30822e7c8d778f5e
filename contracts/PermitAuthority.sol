// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

/// @title Permit authority of the chain-4663 custom launch lane.
/// @notice Verifies launch permits: EIP-712 attestations by the service's permit attester, bound to the launch intent
/// hash, the launch wallet, the exact native value, a finalized checkpoint and an expiry at most one hour after issue
/// (launch-transport.md Request rules 7). A permit is an attestation, never a transaction: the attester key signs
/// typed data only and holds no funds. The launch stamp router consumes each launch intent once.
contract PermitAuthority {
    struct LaunchPermit {
        bytes32 launchIntentHash;
        address wallet;
        uint256 value;
        uint256 checkpointBlockNumber;
        bytes32 checkpointBlockHash;
        uint64 issuedAt;
        uint64 expiresAt;
    }

    bytes32 public constant LAUNCH_PERMIT_TYPEHASH = keccak256(
        "LaunchPermit(bytes32 launchIntentHash,address wallet,uint256 value,uint256 checkpointBlockNumber,bytes32 checkpointBlockHash,uint64 issuedAt,uint64 expiresAt)"
    );
    uint64 public constant MAX_PERMIT_LIFETIME = 3600;
    /// @dev secp256k1n / 2: signatures with a higher s are malleable copies and are refused.
    uint256 private constant HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    address public immutable attester;
    bytes32 public immutable DOMAIN_SEPARATOR;

    error PermitNotYetValid(uint64 issuedAt, uint256 blockTimestamp);
    error PermitExpired(uint64 expiresAt, uint256 blockTimestamp);
    error PermitLifetimeTooLong(uint64 issuedAt, uint64 expiresAt);
    error PermitCheckpointNotPast(uint256 checkpointBlockNumber, uint256 blockNumber);
    error PermitSignatureInvalid();

    constructor(address attester_) {
        attester = attester_;
        DOMAIN_SEPARATOR = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("CustomLaunchPermitAuthority"),
                keccak256("1"),
                block.chainid,
                address(this)
            )
        );
    }

    /// @notice The EIP-712 digest the attester signs for `permit`.
    function digestOf(LaunchPermit calldata permit) public view returns (bytes32) {
        bytes32 structHash = keccak256(abi.encode(LAUNCH_PERMIT_TYPEHASH, permit));
        return keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR, structHash));
    }

    /// @notice Reverts unless `permit` is signed by the attester and valid in this block.
    function check(LaunchPermit calldata permit, bytes calldata signature) external view {
        if (permit.expiresAt < permit.issuedAt || permit.expiresAt - permit.issuedAt > MAX_PERMIT_LIFETIME) {
            revert PermitLifetimeTooLong(permit.issuedAt, permit.expiresAt);
        }
        if (block.timestamp < permit.issuedAt) revert PermitNotYetValid(permit.issuedAt, block.timestamp);
        if (block.timestamp > permit.expiresAt) revert PermitExpired(permit.expiresAt, block.timestamp);
        if (permit.checkpointBlockNumber >= block.number) {
            revert PermitCheckpointNotPast(permit.checkpointBlockNumber, block.number);
        }
        if (signature.length != 65) revert PermitSignatureInvalid();
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_ORDER || (v != 27 && v != 28)) revert PermitSignatureInvalid();
        address signer = ecrecover(digestOf(permit), v, r, s);
        if (signer == address(0) || signer != attester) revert PermitSignatureInvalid();
    }
}
