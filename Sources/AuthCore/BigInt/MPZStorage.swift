internal import CAuthCoreGMP

/// Owns one GMP integer (`mpz_t`); wipes its limbs before freeing them.
final class MPZStorage: @unchecked Sendable {
    // invariant: the mpz is mutated only while the owning BigUInt holds the sole reference (copy-on-write)
    // or before the storage is published.
    let pointer: UnsafeMutablePointer<__mpz_struct>

    init() {
        GMPRuntime.ensureInstalled()
        pointer = .allocate(capacity: 1)
        c_authcore_mpz_init(pointer)
    }

    init(bits: Int) {
        GMPRuntime.ensureInstalled()
        pointer = .allocate(capacity: 1)
        c_authcore_mpz_init2(pointer, mp_bitcnt_t(Swift.max(bits, 64)))
    }

    convenience init(copying other: MPZStorage) {
        self.init(bits: Int(other.pointer.pointee._mp_alloc) * 64)
        c_authcore_mpz_set(pointer, other.pointer)
    }

    deinit {
        let limbs = Int(pointer.pointee._mp_alloc)
        if limbs > 0, let data = pointer.pointee._mp_d {
            secureZero(UnsafeMutableRawPointer(data), count: limbs * MemoryLayout<mp_limb_t>.stride)
        }
        c_authcore_mpz_clear(pointer)
        pointer.deallocate()
    }
}
