/// A Proof Key for Code Exchange pair (RFC 7636): the secret `code_verifier` a client keeps until it
/// exchanges an authorization code, and the `code_challenge` it sends with the authorization request.
///
/// Only the `S256` method is made (§4.2: `code_challenge = BASE64URL-ENCODE(SHA256(ASCII(code_verifier)))`,
/// without padding); `plain` is not offered (Cognito accepts only `S256`). The verifier is kept in
/// wiping storage, and a fresh one is 32 random octets written in base64url (43 characters, the
/// length §4.1 recommends) by a branch-free encoder, so no table is indexed by a secret.
public struct PKCECodeVerifier: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `code_challenge_method`: `S256`.
    public static let method = "S256"
    /// The shortest and longest verifier (§4.1): 43 and 128 characters.
    public static let lengthRange = 43...128

    /// `code_verifier`: 43–128 characters of `[A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"` (§4.1).
    public let verifier: SecureBytes
    /// `code_challenge`: the verifier's SHA-256, base64url without padding (§4.2).
    public let challenge: String

    /// A fresh verifier from `random` (§4.1: 32 octets of randomness, base64url-encoded).
    ///
    /// - Throws: `AuthCoreError.Code.randomFailure` when no randomness is available.
    public init(random: any SecureRandomGenerator = SystemRandom()) throws(AuthCoreError) {
        let octets = try random.secureBytes(count: 32)
        let text = SecureBytes(count: 43) { out in
            octets.withUnsafeBytes { Self.encodeBase64URL($0, into: out) }
        }
        self.init(validated: text)
    }

    /// A given verifier (RFC 7636 Appendix B's, or one kept by the app across a restart).
    ///
    /// - Throws: `AuthCoreError.Code.invalidParameter` for a verifier of the wrong length or with a
    ///   character outside the unreserved set.
    public init(verifier: SecureBytes) throws(AuthCoreError) {
        guard Self.lengthRange.contains(verifier.count) else {
            throw AuthCoreError(
                .invalidParameter,
                "a PKCE code verifier has 43 to 128 characters, got \(verifier.count)"
            )
        }
        let valid = verifier.withUnsafeBytes { bytes in bytes.allSatisfy(Self.isUnreserved) }
        guard valid else {
            throw AuthCoreError(
                .invalidParameter,
                "a PKCE code verifier holds only A-Z, a-z, 0-9, '-', '.', '_' and '~'"
            )
        }
        self.init(validated: verifier)
    }

    private init(validated verifier: SecureBytes) {
        self.verifier = verifier
        self.challenge = verifier.withUnsafeBytes { SHA256.hash(bufferPointer: $0) }.publishedBase64URL
    }

    public var description: String { "PKCECodeVerifier(challenge: \(challenge))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["challenge": challenge], displayStyle: .struct) }

    /// RFC 3986 §2.3 unreserved (``ASCIISet/unreserved``, the percent encoder's set).
    package static func isUnreserved(_ byte: UInt8) -> Bool { ASCIISet.unreserved.contains(byte) }

    /// Base64url without padding (RFC 4648 §5) of `input` into `output` (exactly its encoded length),
    /// computing each symbol arithmetically: no branch and no table index depends on the bytes.
    package static func encodeBase64URL(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        var written = 0
        var index = 0
        func symbol(_ sextet: UInt32) -> UInt8 {
            let v = Int32(bitPattern: sextet & 0x3F)
            var c = v + 65  // A-Z
            c += ((25 - v) >> 8) & 6  // a-z from 26
            c -= ((51 - v) >> 8) & 75  // 0-9 from 52
            c -= ((61 - v) >> 8) & 13  // '-' at 62
            c += ((62 - v) >> 8) & 49  // '_' at 63
            return UInt8(truncatingIfNeeded: c)
        }
        func put(_ byte: UInt8) {
            output[written] = byte
            written += 1
        }
        while index + 3 <= input.count {
            let word = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            put(symbol(word >> 18))
            put(symbol(word >> 12))
            put(symbol(word >> 6))
            put(symbol(word))
            index += 3
        }
        let rest = input.count - index
        if rest == 1 {
            let word = UInt32(input[index]) << 16
            put(symbol(word >> 18))
            put(symbol(word >> 12))
        } else if rest == 2 {
            let word = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            put(symbol(word >> 18))
            put(symbol(word >> 12))
            put(symbol(word >> 6))
        }
        // invariant: callers size the output from the input
        precondition(written == output.count, "base64url output size")
    }
}

extension Digest {
    /// The digest in base64url without padding, declassified (it is sent).
    package var publishedBase64URL: String {
        withUnsafeBytes {
            ConstantFlow.declassify($0)
            return Base64.encode($0, alphabet: .urlSafe)
        }
    }
}
