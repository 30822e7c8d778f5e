// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.26;

/// @title Devnet USD (dUSD): the base-layer devnet's EIP-3009 funding token.
/// @notice A self-contained ERC-20 with 6 decimals and EIP-3009 transfers by signed authorization
/// (`transferWithAuthorization`, `receiveWithAuthorization`, `cancelAuthorization`), EIP-712 domain
/// ("Devnet USD", "2", block.chainid, this) and EIP-5267 `eip712Domain()`. Signatures are (v, r, s) with a low s; an
/// authorization is valid strictly after `validAfter` and strictly before `validBefore`, and each (authorizer, nonce)
/// is used or cancelled once. The constructor mints the whole supply to one holder; there is no other mint.
contract DevnetUsd {
    string public constant name = "Devnet USD";
    string public constant symbol = "dUSD";
    string public constant version = "2";
    uint8 public constant decimals = 6;

    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 public constant CANCEL_AUTHORIZATION_TYPEHASH =
        keccak256("CancelAuthorization(address authorizer,bytes32 nonce)");
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    /// @dev secp256k1n / 2: signatures with a higher s are malleable copies and are refused.
    uint256 private constant HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    uint256 public totalSupply;
    mapping(address owner => uint256) public balanceOf;
    mapping(address owner => mapping(address spender => uint256)) public allowance;
    mapping(address authorizer => mapping(bytes32 nonce => bool)) private _authorizations;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
    event AuthorizationCanceled(address indexed authorizer, bytes32 indexed nonce);

    error InsufficientBalance(address from, uint256 balance, uint256 value);
    error InsufficientAllowance(address spender, uint256 allowance, uint256 value);
    error TransferToZero();
    error AuthorizationNotYetValid(uint256 validAfter, uint256 blockTimestamp);
    error AuthorizationExpired(uint256 validBefore, uint256 blockTimestamp);
    error AuthorizationUsedOrCanceled(address authorizer, bytes32 nonce);
    error CallerMustBePayee(address caller, address payee);
    error InvalidSignature();

    constructor(address holder, uint256 initialSupply) {
        totalSupply = initialSupply;
        balanceOf[holder] = initialSupply;
        emit Transfer(address(0), holder, initialSupply);
    }

    /// @notice The EIP-712 domain separator for the current chain.
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256(bytes(version)), block.chainid, address(this)));
    }

    /// @notice EIP-5267: the fields of the EIP-712 domain (name, version, chainId, verifyingContract).
    function eip712Domain()
        external
        view
        returns (
            bytes1 fields,
            string memory name_,
            string memory version_,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        return (hex"0f", name, version, block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    /// @notice Whether `nonce` of `authorizer` is used or cancelled.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizations[authorizer][nonce];
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < value) revert InsufficientAllowance(msg.sender, allowed, value);
            allowance[from][msg.sender] = allowed - value;
        }
        _transfer(from, to, value);
        return true;
    }

    /// @notice EIP-3009: moves `value` from `from` to `to` on `from`'s signed authorization; anyone may submit it.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _useAuthorization(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
        _transfer(from, to, value);
    }

    /// @notice EIP-3009: like transferWithAuthorization, but only the payee may submit it, so a watcher of pending
    /// transactions cannot spend the authorization in a plain transfer ahead of the payee's own call.
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
    ) external {
        if (to != msg.sender) revert CallerMustBePayee(msg.sender, to);
        _useAuthorization(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
        _transfer(from, to, value);
    }

    /// @notice EIP-3009: voids an unused authorization nonce on the authorizer's signed request.
    function cancelAuthorization(address authorizer, bytes32 nonce, uint8 v, bytes32 r, bytes32 s) external {
        if (_authorizations[authorizer][nonce]) revert AuthorizationUsedOrCanceled(authorizer, nonce);
        bytes32 structHash = keccak256(abi.encode(CANCEL_AUTHORIZATION_TYPEHASH, authorizer, nonce));
        _requireSigner(structHash, authorizer, v, r, s);
        _authorizations[authorizer][nonce] = true;
        emit AuthorizationCanceled(authorizer, nonce);
    }

    function _useAuthorization(
        bytes32 typeHash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) private {
        if (block.timestamp <= validAfter) revert AuthorizationNotYetValid(validAfter, block.timestamp);
        if (block.timestamp >= validBefore) revert AuthorizationExpired(validBefore, block.timestamp);
        if (_authorizations[from][nonce]) revert AuthorizationUsedOrCanceled(from, nonce);
        bytes32 structHash = keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce));
        _requireSigner(structHash, from, v, r, s);
        _authorizations[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
    }

    function _requireSigner(bytes32 structHash, address expected, uint8 v, bytes32 r, bytes32 s) private view {
        if (uint256(s) > HALF_ORDER || (v != 27 && v != 28)) revert InvalidSignature();
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
        address signer = ecrecover(digest, v, r, s);
        if (signer == address(0) || signer != expected) revert InvalidSignature();
    }

    function _transfer(address from, address to, uint256 value) private {
        if (to == address(0)) revert TransferToZero();
        uint256 balance = balanceOf[from];
        if (balance < value) revert InsufficientBalance(from, balance, value);
        unchecked {
            balanceOf[from] = balance - value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
