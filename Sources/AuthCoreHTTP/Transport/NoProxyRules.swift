internal import AuthCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The hosts that bypass a proxy: a `NO_PROXY` list read by curl's rules.
///
/// Entries are separated by commas (spaces around them are ignored). `*` as the whole list bypasses
/// every host. A name matches itself and every name under it (`example.com` matches `example.com`
/// and `api.example.com`, not `notexample.com`); a leading dot, or a leading `*.`, means the same. An
/// IP address matches itself, and with `/bits` (CIDR, as curl 7.86 and later read it) every address
/// in that network (`/0` is every address of the family, where curl reads it as the address alone);
/// IPv6 addresses are written without brackets (`::1`, `fd00::/8`). Beyond curl, an entry may end
/// in `:port` to bypass only that port (`internal.example:8443`, `[::1]:9000`; `::1:9000` is an IPv6
/// address). Names compare ASCII case-insensitively, on bytes; a name never matches an address or
/// the other way round (no DNS lookup is made to compare them). An entry that is none of these is
/// ignored, as curl ignores it (``ignoredEntries``): ignoring it sends more through the proxy, never less.
public struct NoProxyRules: Sendable, Hashable {
    enum Pattern: Sendable, Hashable {
        case everything
        /// A lower-case name without a leading dot.
        case name([UInt8], port: Int?)
        /// An address's bytes (4 or 16) and the prefix length that must match.
        case network([UInt8], bits: Int, port: Int?)
    }

    let patterns: [Pattern]

    /// No host bypasses the proxy.
    public init() {
        patterns = []
        ignoredEntries = []
    }

    /// The entries that were not understood, as written (they bypass nothing).
    public let ignoredEntries: [String]

    /// Parses a `NO_PROXY` list.
    public init(_ list: String) {
        var patterns: [Pattern] = []
        var ignored: [String] = []
        let entries = Array(list.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true).map {
            rawEntry in
            var entry = rawEntry
            while let byte = entry.first, byte == 0x20 || byte == 0x09 { entry = entry.dropFirst() }
            while let byte = entry.last, byte == 0x20 || byte == 0x09 { entry = entry.dropLast() }
            return entry
        }.filter { !$0.isEmpty }
        if entries.count == 1, entries[0].elementsEqual("*".utf8) {
            patterns = [.everything]
        } else {
            for entry in entries {
                if let pattern = Self.pattern(entry) {
                    patterns.append(pattern)
                } else {
                    ignored.append(String(decoding: entry, as: UTF8.self))
                }
            }
        }
        self.patterns = patterns
        ignoredEntries = ignored
    }

    /// Whether a request to `host` (as `RequestURL.host` has it: lower case, IPv6 in brackets) on
    /// `port` is sent directly.
    public func bypasses(host: String, port: Int) -> Bool {
        var name = Array(host.utf8.map(asciiLowercase))[...]
        if name.first == UInt8(ascii: "["), name.last == UInt8(ascii: "]") { name = name.dropFirst().dropLast() }
        while name.last == UInt8(ascii: ".") { name = name.dropLast() }  // `example.com.` is `example.com`
        let address = Self.addressBytes(name)
        return patterns.contains { pattern in
            switch pattern {
            case .everything:
                return true
            case .name(let suffix, let only):
                guard address == nil, only == nil || only == port else { return false }
                return name.elementsEqual(suffix)
                    || (name.count > suffix.count && name.suffix(suffix.count).elementsEqual(suffix)
                        && name[name.endIndex - suffix.count - 1] == UInt8(ascii: "."))
            case .network(let network, let bits, let only):
                guard let address, address.count == network.count, only == nil || only == port else { return false }
                return Self.samePrefix(address, network, bits: bits)
            }
        }
    }

    private static func pattern(_ entry: ArraySlice<UInt8>) -> Pattern? {
        var text = entry
        if text.starts(with: "*.".utf8) { text = text.dropFirst() }  // `*.example.com` is `.example.com`
        var port: Int?
        // `[v6]:port`, `[v6]`, `v4:port`, `name:port`; a bare IPv6 address has several colons.
        if text.first == UInt8(ascii: "[") {
            guard let close = text.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let after = text[(close + 1)...]
            if !after.isEmpty {
                guard after.first == UInt8(ascii: ":"), let value = portNumber(after.dropFirst()) else { return nil }
                port = value
            }
            text = text[(text.startIndex + 1)..<close]
        } else if text.filter({ $0 == UInt8(ascii: ":") }).count == 1,
            let colon = text.firstIndex(of: UInt8(ascii: ":"))
        {
            guard let value = portNumber(text[(colon + 1)...]) else { return nil }
            port = value
            text = text[..<colon]
        }
        var bits: Int?
        if let slash = text.firstIndex(of: UInt8(ascii: "/")) {
            guard let value = decimal(text[(slash + 1)...], maximumDigits: 3) else { return nil }
            bits = value
            text = text[..<slash]
        }
        if let address = addressBytes(text) {
            let width = address.count * 8
            let prefix = bits ?? width
            guard prefix <= width else { return nil }
            return .network(address, bits: prefix, port: port)
        }
        guard bits == nil else { return nil }
        while text.first == UInt8(ascii: ".") { text = text.dropFirst() }
        while text.last == UInt8(ascii: ".") { text = text.dropLast() }
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
        let lowered = text.map(asciiLowercase)
        guard !lowered.isEmpty, lowered.allSatisfy(allowed.contains) else { return nil }
        return .name(lowered, port: port)
    }

    private static func portNumber(_ digits: ArraySlice<UInt8>) -> Int? {
        guard let value = decimal(digits, maximumDigits: 5), (1...65535).contains(value) else { return nil }
        return value
    }

    private static func decimal(_ digits: ArraySlice<UInt8>, maximumDigits: Int) -> Int? {
        guard (1...maximumDigits).contains(digits.count),
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// The 4 or 16 bytes of an IPv4 (dotted decimal) or IPv6 address, or nil for anything else.
    static func addressBytes(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard !text.isEmpty, text.count < 64, text.allSatisfy({ Self.addressCharacters.contains($0) }) else {
            return nil
        }
        let string = String(decoding: text, as: UTF8.self)
        var v4 = in_addr()
        if inet_pton(AF_INET, string, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, string, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    private static let addressCharacters = Set("0123456789abcdefABCDEF:.".utf8)

    private static func samePrefix(_ a: [UInt8], _ b: [UInt8], bits: Int) -> Bool {
        let whole = bits / 8
        guard a.prefix(whole).elementsEqual(b.prefix(whole)) else { return false }
        let rest = bits % 8
        guard rest > 0 else { return true }
        let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - rest))
        return a[whole] & mask == b[whole] & mask
    }
}
