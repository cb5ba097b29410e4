internal import CAuthCoreLibCrypto

/// HMAC-SHA256 (RFC 2104) under one key for many messages: the key's two padded blocks absorbed
/// once, then each MAC copies the saved states.
///
/// RFC 2104 §2, with B = 64 and K₀ the key zero-padded to B bytes (or SHA-256 of a longer key,
/// padded):
///
/// ```
/// inner = SHA-256 state after K₀ ⊕ ipad (0x36 × 64)     — precomputed
/// outer = SHA-256 state after K₀ ⊕ opad (0x5C × 64)     — precomputed
/// HMAC(K, m) = SHA-256(outer ‖ SHA-256(inner ‖ m))
/// ```
///
/// This is how libcrypto's own HMAC works (its `i_ctx`/`o_ctx`), on plain `SHA256_CTX` structs
/// instead of EVP contexts, which OpenSSL 3.0 re-allocates at every reset and finalisation: a MAC
/// here costs no allocation (`digest_contexts.h`). The signers' keyed contexts
/// (``SigningKeyCache``) are schedules; ``KeyedHMAC`` remains the general, EVP-backed API.
///
/// Secrets: the saved states are key-equivalent (with both, anyone can MAC), so they live in the
/// schedule's own heap object (its tail, after an empty header), never in a Swift value that could
/// be copied, and are wiped when the schedule is freed; each MAC's working state and inner digest
/// are on the stack and wiped before it returns. Every operation is constant-flow in the key and
/// the message contents (the key's length is public).
///
/// One allocation per schedule: the states are the tail elements of its one object (a `ManagedBuffer`, as
/// ``Locked`` keeps its mutex), not a second `malloc` — a signer made per request with an empty
/// cache (a server signing for many users) makes one schedule per signature.
struct HMACSHA256Schedule: @unchecked Sendable {
    // @unchecked Sendable: the states are written only by `make`, before the schedule is shared;
    // afterwards they are only read (copied into a caller's stack context), so any number of
    // threads may MAC at once. A value holding one reference: copies share the states.

    /// The two saved states as the tail of one heap object (inner, then outer), wiped when it is freed.
    private final class States: ManagedBuffer<Void, c_authcore_sha256_ctx> {
        deinit {
            // The elements are plain C structs (nothing to deinitialise): wipe the two that were written.
            withUnsafeMutablePointerToElements { states in
                secureZero(UnsafeMutableRawPointer(states), count: 2 * HMACSHA256Schedule.stateSize)
            }
        }
    }

    private let states: States

    fileprivate static var stateSize: Int { MemoryLayout<c_authcore_sha256_ctx>.size }

    /// A schedule for `key` (any length).
    static func make(key: UnsafeRawBufferPointer) -> HMACSHA256Schedule {
        // `create` on the subclass makes a `States` (the documented ManagedBuffer pattern).
        let states = unsafeDowncast(States.create(minimumCapacity: 2) { _ in }, to: States.self)
        states.withUnsafeMutablePointerToElements { absorb(key: key, inner: $0, outer: $0 + 1) }
        return HMACSHA256Schedule(states: states)
    }

    /// A schedule for a key in wiping storage (read in place, inside its access).
    static func make(key: SecureBytes) -> HMACSHA256Schedule {
        key.withUnsafeBytes { make(key: $0) }
    }

    /// HMAC-SHA256 of `message` (32 bytes).
    func authenticationCode(for message: UnsafeRawBufferPointer) -> Digest {
        states.withUnsafeMutablePointerToElements { states in
            Digest(count: LowLevelSHA256.byteCount) {
                Self.finish(inner: states, outer: states + 1, message: message, into: $0)
            }
        }
    }

    /// HMAC-SHA256 of `message` under `key`, written to `out` (32 bytes) and never through a
    /// ``Digest`` value, with the schedule on the stack (wiped): for a key used once, such as a
    /// step of a signing-key derivation, whose result is the next key.
    static func authenticationCode(
        key: UnsafeRawBufferPointer,
        message: UnsafeRawBufferPointer,
        into out: UnsafeMutableRawBufferPointer
    ) {
        withUnsafeTemporaryAllocation(of: c_authcore_sha256_ctx.self, capacity: 2) { pair in
            let inner = pair.baseAddress!  // invariant: capacity 2
            absorb(key: key, inner: inner, outer: inner + 1)
            finish(inner: inner, outer: inner + 1, message: message, into: out)
            secureZero(UnsafeMutableRawPointer(inner), count: 2 * stateSize)
        }
    }

    /// The key schedule (RFC 2104 §2): `inner` and `outer` set to the SHA-256 states after
    /// K₀ ⊕ ipad and K₀ ⊕ opad. K₀ is built and wiped in a stack block.
    private static func absorb(
        key: UnsafeRawBufferPointer,
        inner: UnsafeMutablePointer<c_authcore_sha256_ctx>,
        outer: UnsafeMutablePointer<c_authcore_sha256_ctx>
    ) {
        let blockSize = LowLevelSHA256.blockByteCount
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: blockSize) { block in
            block.initialize(repeating: 0)
            if key.count > blockSize {
                LowLevelSHA256.hash(key, into: UnsafeMutableRawBufferPointer(block))
            } else if key.count > 0 {
                UnsafeMutableRawBufferPointer(block).copyMemory(from: key)
            }
            func absorb(xoring pad: UInt8, into state: UnsafeMutablePointer<c_authcore_sha256_ctx>) {
                // Eight bytes at a time: the block is 64 bytes, a multiple of eight.
                let words = UnsafeMutableRawPointer(block.baseAddress!)  // invariant: blockSize > 0
                let pads = SWAR.ones &* UInt64(pad)
                for offset in stride(from: 0, to: blockSize, by: 8) {
                    words.storeBytes(
                        of: words.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ pads,
                        toByteOffset: offset,
                        as: UInt64.self
                    )
                }
                c_authcore_sha256_init(state)
                c_authcore_sha256_update(state, block.baseAddress, blockSize)
            }
            absorb(xoring: 0x36, into: inner)  // K₀ ⊕ ipad
            absorb(xoring: 0x36 ^ 0x5C, into: outer)  // (K₀ ⊕ ipad) ⊕ ipad ⊕ opad = K₀ ⊕ opad
            secureZero(UnsafeMutableRawBufferPointer(block))
        }
    }

    /// SHA-256(outer ‖ SHA-256(inner ‖ message)) into `out` (32 bytes), the saved states copied into
    /// a stack block (working state, then the inner digest) that is wiped before returning.
    private static func finish(
        inner: UnsafePointer<c_authcore_sha256_ctx>,
        outer: UnsafePointer<c_authcore_sha256_ctx>,
        message: UnsafeRawBufferPointer,
        into out: UnsafeMutableRawBufferPointer
    ) {
        let digestSize = LowLevelSHA256.byteCount
        precondition(out.count >= digestSize, "HMAC-SHA256 output buffer too small")
        withUnsafeTemporaryAllocation(
            byteCount: stateSize + digestSize,
            alignment: MemoryLayout<c_authcore_sha256_ctx>.alignment
        ) { scratch in
            let base = scratch.baseAddress!  // invariant: byteCount > 0
            let work = base.bindMemory(to: c_authcore_sha256_ctx.self, capacity: 1)
            let innerDigest = base + stateSize
            work.initialize(from: inner, count: 1)  // the scratch is uninitialised: initialise
            c_authcore_sha256_update(work, message.baseAddress, message.count)
            c_authcore_sha256_final(work, innerDigest)
            work.update(from: outer, count: 1)  // now initialised: overwrite
            c_authcore_sha256_update(work, innerDigest, digestSize)
            c_authcore_sha256_final(work, out.baseAddress)
            secureZero(scratch)
        }
    }

    /// Whether `other` is this schedule (the same saved states, not an equal copy): a cache hit
    /// hands out the schedule it holds.
    func isSameSchedule(as other: HMACSHA256Schedule) -> Bool { states === other.states }

    /// The two saved states' bytes (inner, outer): key-equivalent, for the stack-residue and
    /// state-stability tests only.
    func withSavedStatesForTesting<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        states.withUnsafeMutablePointerToElements { body(UnsafeRawBufferPointer(start: $0, count: 2 * Self.stateSize)) }
    }
}
