internal import CAuthCoreGMP

/// A non-negative arbitrary-precision integer over GMP, with value semantics.
///
/// `BigUInt` is copy-on-write over a final class that owns an `mpz_t`; the limbs are wiped before
/// they are freed (and GMP's own temporaries go through AuthCore's zeroizing allocator, see
/// ``SecureBytes`` for byte buffers). Its `description` shows only the size, never the value,
/// because a `BigUInt` may hold a secret (`a`, `b`, `x`, `S`).
///
/// Arithmetic operators and ``powerVariableTime(_:modulo:)`` take time that depends on the values:
/// use them for public values only. Exponentiation with a secret exponent goes through
/// ``ModularContext/power(_:secretExponent:exponentBitCount:)``.
public struct BigUInt: Sendable, Comparable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var storage: MPZStorage

    // MARK: - Creating values

    /// Zero.
    public init() { storage = MPZStorage() }

    /// A machine-word value.
    public init(_ value: UInt) {
        storage = MPZStorage()
        c_authcore_mpz_set_ui(storage.pointer, value)
    }

    init(storage: MPZStorage) { self.storage = storage }

    /// Reads big-endian bytes (leading zero bytes are allowed and ignored; empty means zero).
    public init(bigEndianBytes bytes: UnsafeRawBufferPointer) {
        storage = MPZStorage(bits: bytes.count * 8)
        if let base = bytes.baseAddress, bytes.count > 0 {
            c_authcore_mpz_import_be(storage.pointer, bytes.count, base)
        }
    }

    /// Reads big-endian bytes (leading zero bytes are allowed and ignored; empty means zero).
    public init(bigEndianBytes bytes: some Collection<UInt8>) {
        if let value = bytes.withContiguousStorageIfAvailable({ BigUInt(bigEndianBytes: UnsafeRawBufferPointer($0)) }) {
            self = value
        } else {
            var array = Array(bytes)
            self = array.withUnsafeBytes { BigUInt(bigEndianBytes: $0) }
            array.secureZeroize()
        }
    }

    /// Reads big-endian bytes from wiping storage.
    public init(bigEndianBytes bytes: SecureBytes) {
        self = bytes.withUnsafeBytes { BigUInt(bigEndianBytes: $0) }
    }

    /// Reads a hexadecimal number: upper or lower case, any length including odd, leading zeros allowed.
    ///
    /// - Parameters:
    ///   - hex: the digits.
    ///   - field: the name used in the error reason (never the value).
    /// - Throws: ``AuthCoreError/Code/invalidHex`` for an empty string or a non-hex character.
    public init(hex: some StringProtocol, field: String = "hex") throws(AuthCoreError) {
        var bytes = try Hex.decodeNumber(hex, field: field)
        self = bytes.withUnsafeBytes { BigUInt(bigEndianBytes: $0) }
        bytes.secureZeroize()
    }

    // MARK: - Properties

    /// Whether the value is zero.
    public var isZero: Bool { c_authcore_mpz_sgn(storage.pointer) == 0 }
    /// Whether the value is odd.
    public var isOdd: Bool { c_authcore_mpz_odd_p(storage.pointer) != 0 }
    /// The number of significant bits (0 for zero).
    public var bitWidth: Int { isZero ? 0 : Int(c_authcore_mpz_sizeinbase(storage.pointer, 2)) }
    /// The number of bytes of the minimal big-endian form (0 for zero).
    public var byteWidth: Int { (bitWidth + 7) / 8 }
    /// The number of 64-bit limbs in use.
    var limbCount: Int { Int(c_authcore_mpz_size(storage.pointer)) }

    /// Calls `body` with the memory of the significant limbs (constant-flow harnesses mark a stored
    /// secret such as a verifier with it).
    package func withUnsafeLimbBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        let count = limbCount
        guard count > 0, let limbs = c_authcore_mpz_limbs_read(storage.pointer) else {
            return body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        return body(UnsafeRawBufferPointer(start: limbs, count: count * MemoryLayout<UInt>.stride))
    }

    // MARK: - Byte and text forms

    /// The big-endian bytes without leading zeros (empty for zero).
    public var minimalBigEndianBytes: [UInt8] {
        let count = byteWidth
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = c_authcore_mpz_export_be(buffer.baseAddress!, storage.pointer)  // invariant: count > 0
        }
    }

    /// Writes the value big-endian, left-padded with zeros, into exactly `buffer.count` bytes.
    ///
    /// - Throws: ``AuthCoreError/Code/invalidLength`` when the value needs more bytes.
    public func writeBigEndianBytes(into buffer: UnsafeMutableRawBufferPointer) throws(AuthCoreError) {
        let count = byteWidth
        guard count <= buffer.count else {
            throw AuthCoreError(.invalidLength, "value needs \(count) bytes, more than the \(buffer.count) available")
        }
        guard let base = buffer.baseAddress else { return }
        let padding = buffer.count - count
        base.initializeMemory(as: UInt8.self, repeating: 0, count: padding)
        if count > 0 { _ = c_authcore_mpz_export_be(base + padding, storage.pointer) }
    }

    /// The big-endian bytes left-padded with zeros to `width` (RFC 5054 `PAD()`).
    ///
    /// - Throws: ``AuthCoreError/Code/invalidLength`` when the value needs more than `width` bytes.
    public func bigEndianBytes(paddedTo width: Int) throws(AuthCoreError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: width)
        try out.withUnsafeMutableBytesTyped { (buffer) throws(AuthCoreError) in try writeBigEndianBytes(into: buffer) }
        return out
    }

    /// The bytes Cognito's SRP hashes: the minimal big-endian form, with a `00` byte prepended when
    /// the first byte is ≥ 0x80 (two's-complement sign padding, as Java's `BigInteger.toByteArray`
    /// and the AWS SDKs' `padHex`); zero is `[0x00]`.
    public var signPaddedBigEndianBytes: [UInt8] {
        let minimal = minimalBigEndianBytes
        guard let first = minimal.first else { return [0] }
        return first >= 0x80 ? [0] + minimal : minimal
    }

    /// Hexadecimal digits without leading zeros (`"0"` for zero).
    public func hex(uppercase: Bool = false) -> String {
        var bytes = minimalBigEndianBytes
        defer { bytes.secureZeroize() }
        guard !bytes.isEmpty else { return "0" }
        var text = Hex.encode(bytes, uppercase: uppercase)
        if text.utf8.first == UInt8(ascii: "0") { text.removeFirst() }
        return text
    }

    /// Lower-case hex without leading zeros.
    public var hexLowercased: String { hex(uppercase: false) }
    /// Upper-case hex without leading zeros.
    public var hexUppercased: String { hex(uppercase: true) }

    public var description: String { "BigUInt(\(bitWidth) bits)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["bitWidth": bitWidth]) }

    // MARK: - Comparison (variable time)

    /// Equality in variable time: not for secret values.
    public static func == (lhs: BigUInt, rhs: BigUInt) -> Bool {
        c_authcore_mpz_cmp(lhs.storage.pointer, rhs.storage.pointer) == 0
    }

    /// Ordering in variable time: not for secret values.
    public static func < (lhs: BigUInt, rhs: BigUInt) -> Bool {
        c_authcore_mpz_cmp(lhs.storage.pointer, rhs.storage.pointer) < 0
    }

    // MARK: - Copy on write

    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = MPZStorage(copying: storage) }
    }

    /// Applies a GMP operation that writes into a fresh result.
    static func result(_ body: (UnsafeMutablePointer<__mpz_struct>) -> Void) -> BigUInt {
        let out = MPZStorage()
        body(out.pointer)
        return BigUInt(storage: out)
    }
}
