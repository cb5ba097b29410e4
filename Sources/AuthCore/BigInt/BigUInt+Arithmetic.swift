internal import CAuthCoreGMP

// MARK: - Arithmetic for public values (variable time)

extension BigUInt {
    /// Sum.
    public static func + (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        result { c_authcore_mpz_add($0, lhs.storage.pointer, rhs.storage.pointer) }
    }

    /// Product.
    public static func * (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        result { c_authcore_mpz_mul($0, lhs.storage.pointer, rhs.storage.pointer) }
    }

    /// Difference.
    ///
    /// - Precondition: `lhs >= rhs` (a `BigUInt` cannot be negative); use
    ///   ``subtracting(_:modulo:)`` for modular differences.
    public static func - (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        // invariant: callers subtract smaller values only
        precondition(lhs >= rhs, "BigUInt subtraction would be negative")
        return result { c_authcore_mpz_sub($0, lhs.storage.pointer, rhs.storage.pointer) }
    }

    /// The least non-negative residue modulo `modulus`.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` when `modulus` is zero.
    public func modulo(_ modulus: BigUInt) throws(AuthCoreError) -> BigUInt {
        guard !modulus.isZero else { throw AuthCoreError(.invalidParameter, "modulus is zero") }
        return BigUInt.result { c_authcore_mpz_mod($0, storage.pointer, modulus.storage.pointer) }
    }

    /// `(self - other) mod modulus`, for values of any size.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` when `modulus` is zero.
    public func subtracting(_ other: BigUInt, modulo modulus: BigUInt) throws(AuthCoreError) -> BigUInt {
        guard !modulus.isZero else { throw AuthCoreError(.invalidParameter, "modulus is zero") }
        return BigUInt.result { r in
            c_authcore_mpz_sub(r, storage.pointer, other.storage.pointer)
            c_authcore_mpz_mod(r, r, modulus.storage.pointer)
        }
    }

    /// `self^exponent mod modulus` in time that depends on the exponent: **public exponents only**.
    ///
    /// The corresponding GMP function is `mpz_powm`.
    /// - Throws: ``AuthCoreError/Code/invalidParameter`` when `modulus` is zero.
    public func powerVariableTime(_ exponent: BigUInt, modulo modulus: BigUInt) throws(AuthCoreError) -> BigUInt {
        guard !modulus.isZero else { throw AuthCoreError(.invalidParameter, "modulus is zero") }
        return powerVariableTime(exponent, nonzeroModulus: modulus)
    }

    /// `self^exponent mod modulus` by `mpz_powm` (**public exponents only**), the package's one
    /// variable-time exponentiation: ``ModularContext`` and the SRP engine's public constants use it.
    func powerVariableTime(_ exponent: BigUInt, nonzeroModulus modulus: BigUInt) -> BigUInt {
        BigUInt.result { c_authcore_mpz_powm($0, storage.pointer, exponent.storage.pointer, modulus.storage.pointer) }
    }

    /// 2^`bits`.
    static func powerOfTwo(_ bits: Int) -> BigUInt {
        BigUInt.result {
            c_authcore_mpz_set_ui($0, 1)
            c_authcore_mpz_mul_2exp($0, $0, mp_bitcnt_t(bits))
        }
    }

    /// `self^exponent mod modulus` with a secret exponent, in time independent of the exponent's
    /// value for a given `exponentBitCount`.
    ///
    /// A convenience that builds a one-off ``ModularContext``; for repeated use keep a context.
    /// - Throws: as ``ModularContext/init(modulus:maximumExponentBitCount:)`` and
    ///   ``ModularContext/power(_:secretExponent:exponentBitCount:)``.
    public func power(
        secretExponent exponent: BigUInt,
        exponentBitCount: Int,
        modulo modulus: BigUInt
    )
        throws(AuthCoreError) -> BigUInt
    {
        let context = try ModularContext(modulus: modulus, maximumExponentBitCount: exponentBitCount)
        return try context.power(self, secretExponent: exponent, exponentBitCount: exponentBitCount)
    }

    /// Whether the value is probably prime (GMP's `mpz_probab_prime_p`: trial division, Baillie–PSW and
    /// `rounds` Miller–Rabin rounds). Variable time; for checking public parameters.
    package func isProbablePrime(rounds: Int = 25) -> Bool {
        c_authcore_mpz_probab_prime_p(storage.pointer, Int32(rounds)) > 0
    }

    /// Reads bit `index` (0 = least significant). Variable time.
    func bit(_ index: Int) -> Bool { c_authcore_mpz_tstbit(storage.pointer, mp_bitcnt_t(index)) != 0 }
}
