/// The canonical query string of a signature: every parameter RFC 3986-encoded, pairs sorted by
/// key then value in byte order, joined with `&` — the one builder for SigV4 (AWS General
/// Reference, "Create a canonical request", step 3), OSS V4's canonical query and signed URLs.
/// The schemes differ only in how they read their input (a raw query, or decoded pairs) and in
/// how an empty value is written (``EmptyValue``).
package enum CanonicalQuery {
    /// SigV4's canonical query string from a raw query: split on `&` and the first `=`, decode,
    /// re-encode per RFC 3986, add `additions` (already encoded), drop the keys `excluding` names,
    /// sort by key then value, `key=value` even for empty values.
    package static func fromRawQuery(
        _ query: String,
        adding additions: [(key: [UInt8], value: [UInt8])] = [],
        excluding: (UnsafeBufferPointer<UInt8>) -> Bool = { _ in false },
        holdsSecret: Bool = false
    ) -> [UInt8] {
        if additions.isEmpty, query.utf8.withContiguousStorageIfAvailable(isAlreadyCanonical) ?? false {
            return Array(query.utf8)
        }
        return reencoded(query, adding: additions, excluding: excluding, holdsSecret: holdsSecret)
    }

    /// ``fromRawQuery(_:adding:excluding:holdsSecret:)`` without the fast path: every pair decoded
    /// and re-encoded. The pairs are encoded into one temporary block of their final size at most
    /// (a byte becomes three at most, a `%XX` one), written in place; `holdsSecret` (a presigned
    /// URL's token among the additions) wipes that block, and the one the result is built in.
    package static func reencoded(
        _ query: String,
        adding additions: [(key: [UInt8], value: [UInt8])] = [],
        excluding: (UnsafeBufferPointer<UInt8>) -> Bool = { _ in false },
        holdsSecret: Bool = false
    ) -> [UInt8] {
        var pairs: [(key: Range<Int>, value: Range<Int>)] = []
        var q = query
        return q.withUTF8 { raw in
            let capacity = 3 &* raw.count &+ additions.reduce(0) { $0 &+ $1.key.count &+ $1.value.count }
            // One pair per `&`-separated part at most, plus the additions: the list grows once.
            var separators = 0
            for byte in raw where byte == UInt8(ascii: "&") { separators &+= 1 }
            pairs.reserveCapacity(separators &+ 1 &+ additions.count)
            return withEncodingBlock(capacity: capacity, wiping: holdsSecret) { buffer in
                var out = OutputCursor(buffer: buffer)
                var start = 0
                while start <= raw.count {
                    var end = start
                    while end < raw.count && raw[end] != UInt8(ascii: "&") { end += 1 }
                    if end > start {
                        var eq = start
                        while eq < end && raw[eq] != UInt8(ascii: "=") { eq += 1 }
                        let keyStart = out.position
                        PercentEncoding.reencode(
                            UnsafeBufferPointer(rebasing: raw[start..<eq]),
                            .unreserved,
                            into: &out
                        )
                        let keyRange = keyStart..<out.position
                        if excluding(UnsafeBufferPointer(rebasing: buffer[keyRange])) {
                            out.position = keyStart
                        } else {
                            let valueStart = out.position
                            if eq < end {
                                PercentEncoding.reencode(
                                    UnsafeBufferPointer(rebasing: raw[(eq + 1)..<end]),
                                    .unreserved,
                                    into: &out
                                )
                            }
                            pairs.append((keyRange, valueStart..<out.position))
                        }
                    }
                    start = end + 1
                }
                for (key, value) in additions {
                    let keyStart = out.position
                    out.write(key)
                    let valueStart = out.position
                    out.write(value)
                    pairs.append((keyStart..<valueStart, valueStart..<out.position))
                }
                let encoded = UnsafeBufferPointer(rebasing: buffer[..<out.position])
                let result = joined(encoded, &pairs, emptyValue: .keyEquals, holdsSecret: holdsSecret)
                // An excluded key's bytes may lie past the last pair: the whole block is wiped.
                return (result, buffer.count)
            }
        }
    }

    /// The canonical query of decoded pairs (OSS V4's canonical query, OSS signed URLs, RPC
    /// signatures): each side RFC 3986-encoded, sorted by key then value, joined with `&`, under
    /// `emptyValue`.
    package static func fromPairs(_ parameters: [(key: String, value: String)], emptyValue: EmptyValue) -> [UInt8] {
        var repeated = false
        return fromPairs(parameters, emptyValue: emptyValue, hasRepeatedKey: &repeated)
    }

    /// ``fromPairs(_:emptyValue:)``, and whether two pairs have one key (equal encoded keys: the
    /// encoding is one-to-one), found in the sorted order at no extra cost.
    ///
    /// Every pair is encoded into one temporary block (a byte becomes three at most), eight bytes at a time
    /// where all are kept (``PercentEncoding/encode(_:_:into:)-(UnsafeBufferPointer<UInt8>,_,_)``).
    package static func fromPairs(
        _ parameters: [(key: String, value: String)],
        emptyValue: EmptyValue,
        hasRepeatedKey: inout Bool
    ) -> [UInt8] {
        hasRepeatedKey = false
        guard !parameters.isEmpty else { return [] }
        var pairs: [(key: Range<Int>, value: Range<Int>)] = []
        pairs.reserveCapacity(parameters.count)
        let capacity = 3 &* parameters.reduce(0) { $0 &+ $1.key.utf8.count &+ $1.value.utf8.count }
        var repeated = false
        // Wiped: a pair may be a session token (an OSS signed URL's, an RPC call's).
        let result = withEncodingBlock(capacity: capacity, wiping: true) { buffer in
            var out = OutputCursor(buffer: buffer)
            for (key, value) in parameters {
                let keyStart = out.position
                encode(key, into: &out)
                let valueStart = out.position
                encode(value, into: &out)
                pairs.append((keyStart..<valueStart, valueStart..<out.position))
            }
            let encoded = UnsafeBufferPointer(rebasing: buffer[..<out.position])
            let result = joined(encoded, &pairs, emptyValue: emptyValue, holdsSecret: true)
            repeated = pairs.indices.dropFirst().contains { bytesEqual(encoded, pairs[$0 &- 1].key, pairs[$0].key) }
            return (result, out.position)
        }
        hasRepeatedKey = repeated
        return result
    }

    /// Runs `body` on a temporary block of `capacity` bytes (at least one; on the stack unless
    /// large) that it encodes pairs into, and returns its result; `body` also returns how many bytes
    /// it wrote, and with `wiping` those (and the at most seven more an eight-byte store may have
    /// reached) are wiped afterwards. An array would cost an allocation, and one through an entry
    /// point the compiler cannot specialise (``Swift/Array/init(writing:holdsSecret:_:)`` says why).
    @inline(__always)
    private static func withEncodingBlock(
        capacity: Int,
        wiping: Bool,
        _ body: (UnsafeMutableBufferPointer<UInt8>) -> ([UInt8], Int)
    ) -> [UInt8] {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Swift.max(capacity, 1)) { block in
            let (result, written) = body(block)
            if wiping {
                let reached = Swift.min(block.count, written &+ 8)
                secureZero(UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: block[..<reached])))
            }
            return result
        }
    }

    /// `text`'s bytes RFC 3986-encoded into `out`: in place for a native string (eight bytes at a
    /// time), byte by byte otherwise.
    @inline(__always)
    private static func encode(_ text: String, into out: inout OutputCursor) {
        if text.utf8.withContiguousStorageIfAvailable({ PercentEncoding.encode($0, .unreserved, into: &out) }) == nil {
            PercentEncoding.encode(text.utf8, .unreserved, into: &out)
        }
    }

    /// The pairs of a raw query (`a=1&b&c=%20`): split on `&` bytes, then on the first `=` (none:
    /// an empty value), each side percent-decoded (bytes that are not UTF-8 read as replacement
    /// characters). The one reader of a query's pairs: OSS requests and the self-signed authority's
    /// V4 check. Split on bytes, as a server does, never on grapheme clusters (`&` followed by a
    /// combining mark still separates).
    /// - Parameter omittingEmpty: skip empty parts (`a=1&&b`) instead of reading them as an empty key.
    package static func decodedPairs(
        _ query: some StringProtocol,
        omittingEmpty: Bool
    ) -> [(key: String, value: String)] {
        query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: omittingEmpty).map { piece in
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let key = PercentEncoding.decode(Array(piece[..<(equals ?? piece.endIndex)]))
            let value = equals.map { PercentEncoding.decode(Array(piece[piece.index(after: $0)...])) } ?? []
            return (String(decoding: key, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }
    }

    /// How a parameter with an empty value is written.
    package enum EmptyValue {
        /// `key=` (SigV4).
        case keyEquals
        /// `key` (OSS).
        case keyOnly
    }

    /// Sorts `pairs` (ranges of `buffer`) by key, then value, in byte order: for a query's few pairs
    /// an insertion sort, stable, that compares each key's first eight bytes as one number
    /// (big-endian, zero-padded: a smaller number is a smaller key) and reads the bytes only when
    /// those are equal, the numbers in a stack block beside the pairs; beyond
    /// ``insertionSortLimit`` pairs (a caller's long query) the standard library's sort, so the
    /// work stays O(n log n).
    private static func sortByKeyThenValue(
        _ pairs: inout [(key: Range<Int>, value: Range<Int>)],
        in buffer: UnsafeBufferPointer<UInt8>
    ) {
        guard pairs.count > 1, let base = UnsafeRawPointer(buffer.baseAddress) else { return }
        /// The order: key, then value, bytewise.
        @inline(__always) func less(
            _ a: (key: Range<Int>, value: Range<Int>),
            _ b: (key: Range<Int>, value: Range<Int>)
        ) -> Bool {
            bytesLess(buffer, a.key, b.key) || (bytesEqual(buffer, a.key, b.key) && bytesLess(buffer, a.value, b.value))
        }
        guard pairs.count <= insertionSortLimit else {
            pairs.sort(by: less)
            return
        }
        pairs.withUnsafeMutableBufferPointer { pairs in
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: pairs.count) { prefixes in
                for index in pairs.indices {
                    let key = pairs[index].key
                    // Keys are ranges of the buffer (checked): the load reads inside it.
                    precondition(key.lowerBound >= 0 && key.upperBound <= buffer.count, "pair outside its buffer")
                    prefixes[index] =
                        SWAR.loadPartial(base, offset: key.lowerBound, count: Swift.min(8, key.count), padding: 0)
                        .byteSwapped
                }
                @inline(__always) func precedes(
                    _ a: Int,
                    before prefix: UInt64,
                    _ pair: (key: Range<Int>, value: Range<Int>)
                ) -> Bool {
                    if prefix != prefixes[a] { return prefix < prefixes[a] }
                    return less(pair, pairs[a])
                }
                for index in 1..<pairs.count {
                    let pair = pairs[index]
                    let prefix = prefixes[index]
                    var slot = index
                    while slot > 0 && precedes(slot &- 1, before: prefix, pair) {
                        pairs[slot] = pairs[slot &- 1]
                        prefixes[slot] = prefixes[slot &- 1]
                        slot &-= 1
                    }
                    pairs[slot] = pair
                    prefixes[slot] = prefix
                }
            }
        }
    }

    /// The most pairs ``sortByKeyThenValue(_:in:)`` sorts by insertion.
    package static var insertionSortLimit: Int { 32 }

    /// The pairs (ranges of `buffer`) sorted by key, then value, in byte order, joined with `&`;
    /// built in a temporary block, wiped afterwards when it `holdsSecret`.
    private static func joined(
        _ buffer: UnsafeBufferPointer<UInt8>,
        _ pairs: inout [(key: Range<Int>, value: Range<Int>)],
        emptyValue: EmptyValue,
        holdsSecret: Bool
    ) -> [UInt8] {
        if pairs.isEmpty { return [] }
        sortByKeyThenValue(&pairs, in: buffer)
        // The result's exact length: each pair's key, its `=` and value (unless left out), the `&`s.
        var length = pairs.count &- 1
        for pair in pairs {
            length &+= pair.key.count
            if emptyValue == .keyEquals || !pair.value.isEmpty { length &+= 1 &+ pair.value.count }
        }
        return [UInt8](writing: length, holdsSecret: holdsSecret) { cursor in
            // Eight bytes at a time where both sides have room (writeWords): a word's extra bytes
            // land inside the block, on bytes written next or past the result's end (the block
            // is wiped whole when it holds a secret).
            @inline(__always) func copy(_ range: Range<Int>) {
                // An empty range writes nothing (the result may then be empty, with no address).
                guard !range.isEmpty, let base = UnsafeRawPointer(buffer.baseAddress) else { return }
                cursor.writeWords(
                    base + range.lowerBound,
                    count: range.count,
                    sourceSlack: buffer.count &- range.upperBound
                )
            }
            for index in pairs.indices {
                let pair = pairs[index]
                if index > 0 { cursor.writeByte(UInt8(ascii: "&")) }
                copy(pair.key)
                if emptyValue == .keyEquals || !pair.value.isEmpty {
                    cursor.writeByte(UInt8(ascii: "="))
                    copy(pair.value)
                }
            }
        }
    }

    static func containsControlByte(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable(SWAR.containsControlByte)
            ?? text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
    }

    /// Whether a raw query is already canonical: only unreserved characters, every pair has an `=`,
    /// no empty pair, and pairs in sorted order (the common case: no re-encoding, no sorting).
    ///
    /// One pass, eight bytes at a time: each word's bytes are checked against the allowed set, and
    /// its `&` and `=` bytes (SWAR masks, walked lowest bit first) end pairs and split them.
    package static func isAlreadyCanonical(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let source = UnsafeRawPointer(raw.baseAddress), raw.count > 0 else { return true }
        if raw[raw.count &- 1] == UInt8(ascii: "&") { return false }  // a trailing empty pair is dropped, not copied
        var pairs = SortedPairCheck()
        var offset = 0
        while offset < raw.count {
            // The last one to seven bytes padded with `a` (unreserved, no separator).
            let word = SWAR.loadPartial(
                source,
                offset: offset,
                count: Swift.min(8, raw.count &- offset),
                padding: UInt8(ascii: "a")
            )
            let ampersands = SWAR.equalMask(word, UInt8(ascii: "&"))
            let equals = SWAR.equalMask(word, UInt8(ascii: "="))
            let allowed =
                SWAR.unreservedOrSlashMask(word) & ~SWAR.equalMask(word, UInt8(ascii: "/")) | ampersands | equals
            if allowed != SWAR.highs { return false }
            var separators = ampersands | equals
            while separators != 0 {
                let position = offset &+ separators.trailingZeroBitCount &>> 3
                separators &= separators &- 1
                if equals & (0x80 &<< UInt64((position &- offset) &<< 3)) != 0 {
                    guard pairs.equals < 0 else { return false }  // a second `=` in one pair
                    pairs.equals = position
                } else if !pairs.close(at: position, in: raw) {
                    return false
                }
            }
            offset &+= 8
        }
        return pairs.close(at: raw.count, in: raw)
    }

    /// The pair walk of ``isAlreadyCanonical(_:)``: the current pair's start and `=`, and the
    /// previous pair's key and value.
    private struct SortedPairCheck {
        var start = 0
        var equals = -1
        var previousKey = 0..<0
        var previousValue = 0..<0

        /// Ends the pair at `end` (an `&` or the end of the query): whether it has an `=` (an empty
        /// pair has none) and sorts after the previous one (key, then value).
        @inline(__always)
        mutating func close(at end: Int, in raw: UnsafeBufferPointer<UInt8>) -> Bool {
            guard equals >= 0 else { return false }
            let key = start..<equals
            let value = (equals &+ 1)..<end
            if start > 0, !bytesLess(raw, previousKey, key) {
                guard bytesEqual(raw, previousKey, key), !bytesLess(raw, value, previousValue) else { return false }
            }
            previousKey = key
            previousValue = value
            start = end &+ 1
            equals = -1
            return true
        }
    }
}
