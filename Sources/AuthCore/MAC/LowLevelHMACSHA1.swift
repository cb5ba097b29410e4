internal import CAuthCoreLibCrypto

/// HMAC-SHA1 (RFC 2104 with FIPS 180-4 SHA-1) in one call on two stack `SHA_CTX`s: no allocation,
/// for Alibaba Cloud's RPC signature (``AliyunRPCSigner``), whose key is used once per call
/// (`digest_contexts.h` says why this bypasses EVP). Every other HMAC-SHA1 goes through
/// ``HashAlgorithm/authenticationCode(for:using:)``; the two are differential-tested.
///
/// Memory safety: the contexts and the key block are `withUnsafeTemporaryAllocation`s, initialised
/// by libcrypto or by this code before they are read and wiped before they are released.
package enum LowLevelHMACSHA1 {
    static let byteCount = 20
    static let blockByteCount = 64
    private static let stateSize = MemoryLayout<c_authcore_sha1_ctx>.stride

    /// HMAC-SHA1 of `message` under `key`.
    package static func authenticationCode(
        for message: UnsafeRawBufferPointer,
        using key: UnsafeRawBufferPointer
    ) -> Digest {
        Digest(count: byteCount) { out in
            withUnsafeTemporaryAllocation(
                byteCount: stateSize + blockByteCount,
                alignment: MemoryLayout<c_authcore_sha1_ctx>.alignment
            ) { scratch in
                let base = scratch.baseAddress!  // invariant: byteCount > 0
                let state = base.bindMemory(to: c_authcore_sha1_ctx.self, capacity: 1)
                let block = UnsafeMutableRawBufferPointer(start: base + stateSize, count: blockByteCount)
                // K₀ (RFC 2104 §2): the key, or SHA-1(key) when longer than a block, zero-padded.
                block.initializeMemory(as: UInt8.self, repeating: 0)
                if key.count > blockByteCount {
                    c_authcore_sha1_init(state)
                    c_authcore_sha1_update(state, key.baseAddress, key.count)
                    c_authcore_sha1_final(state, block.baseAddress)
                } else if key.count > 0 {
                    block.copyMemory(from: key)
                }
                // inner = SHA-1(K₀ ⊕ ipad ‖ message), written over the start of `out`.
                xor(block, with: 0x36)
                c_authcore_sha1_init(state)
                c_authcore_sha1_update(state, block.baseAddress, blockByteCount)
                c_authcore_sha1_update(state, message.baseAddress, message.count)
                c_authcore_sha1_final(state, out.baseAddress)
                // SHA-1(K₀ ⊕ opad ‖ inner).
                xor(block, with: 0x36 ^ 0x5C)
                c_authcore_sha1_init(state)
                c_authcore_sha1_update(state, block.baseAddress, blockByteCount)
                c_authcore_sha1_update(state, out.baseAddress, byteCount)
                c_authcore_sha1_final(state, out.baseAddress)
                secureZero(scratch)
            }
        }
    }

    /// `block` ⊕= `pad` repeated, eight bytes at a time (the block is 64 bytes).
    private static func xor(_ block: UnsafeMutableRawBufferPointer, with pad: UInt8) {
        let pads = SWAR.ones &* UInt64(pad)
        for offset in stride(from: 0, to: blockByteCount, by: 8) {
            block.storeBytes(
                of: block.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ pads,
                toByteOffset: offset,
                as: UInt64.self
            )
        }
    }
}
