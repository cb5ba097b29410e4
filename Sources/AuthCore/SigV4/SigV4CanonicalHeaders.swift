/// Canonical headers and the signed-header list (AWS General Reference, "Create a canonical request
/// for Signature Version 4", steps 4–5):
///
/// ```
/// CanonicalHeaders = (lowercase(name) ":" trimall(value[, value…]) "\n")*   sorted by name
/// SignedHeaders    = lowercase(name) (";" lowercase(name))*
/// ```
///
/// One pass writes each field's finished line (`name:value\n`) into stack scratch, eight bytes at a
/// time where it can; an insertion sort orders small slots; the lines are then copied out whole.
/// No per-header strings, no closures that capture mutable state.
extension SigV4CanonicalRequest {
    /// Appends the canonical header lines, a blank line, and the signed-header list followed by `\n`;
    /// returns the range of the list. The request's `Authorization` and `X-Amz-Date` fields (and the
    /// ones the signer adds) are left out.
    package static func writeHeaders(
        _ headers: [HTTPHeader], utf8Count: (headers: Int, signer: Int)? = nil, signerHeaders: SignerHeaders,
        wipesScratch: Bool = false, into out: inout OutputCursor, problem: inout HeaderProblem?
    ) -> Range<Int> {
        // Each line is at most name + value + 2; a sort key may read up to 8 bytes past the last line.
        let counts: (headers: Int, signer: Int)
        if let utf8Count {
            counts = utf8Count
        } else {
            let fields = HTTPHeader.utf8Counts(headers)
            counts = (fields.names + fields.values, signerHeaders.scratchBytes)
        }
        let capacity = 16 + 2 * counts.signer + counts.headers + 2 * headers.count
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            withUnsafeTemporaryAllocation(of: HeaderSlot.self, capacity: headers.count + 3) { slots in
                var table = CanonicalHeaderTable(scratch: scratch, slots: slots)
                let found = table.collect(headers, signerHeaders: signerHeaders)
                if problem == nil { problem = found }
                table.sort()
                let signed = table.write(into: &out)
                if wipesScratch || signerHeaders.holdsSecret { secureZero(UnsafeMutableRawBufferPointer(scratch)) }  // the token's copy
                return signed
            }
        }
    }
}

/// One canonical header line inside the scratch buffer: `name:value\n`.
struct HeaderSlot {
    /// The whole line, newline included.
    var line: Range<Int>
    /// The length of the lower-cased name at the start of the line.
    var nameLength: Int
    /// The first eight name bytes, big-endian, zero-padded: orders most names without a byte loop.
    var key: UInt64

    var name: Range<Int> { line.lowerBound..<(line.lowerBound &+ nameLength) }
    /// The value, without the `:` before it and the newline after it.
    var value: Range<Int> { (line.lowerBound &+ nameLength &+ 1)..<(line.upperBound &- 1) }
}

/// The canonical headers of one request, in stack scratch.
struct CanonicalHeaderTable {
    let scratch: UnsafeMutableBufferPointer<UInt8>
    let base: UnsafeMutablePointer<UInt8>
    let slots: UnsafeMutableBufferPointer<HeaderSlot>
    var used = 0
    var slotCount = 0

    init(scratch: UnsafeMutableBufferPointer<UInt8>, slots: UnsafeMutableBufferPointer<HeaderSlot>) {
        self.scratch = scratch
        self.base = scratch.baseAddress!  // invariant: the scratch always has at least 16 bytes
        self.slots = slots
    }

    /// Writes each field's line into the scratch — name lower-cased, value trimmed with runs of
    /// spaces and tabs collapsed — then the signer's own headers; returns the first problem: a
    /// name that is not an HTTP token, a value with a control byte (0x00–0x1F other than HTAB, or
    /// 0x7F: RFC 9110 §5.5 field-value), or no `Host`.
    mutating func collect(_ headers: [HTTPHeader], signerHeaders: SigV4CanonicalRequest.SignerHeaders) -> SigV4CanonicalRequest.HeaderProblem? {
        var problem: SigV4CanonicalRequest.HeaderProblem?
        var sawHost = false
        let dropsContentHash = signerHeaders.contentSHA256 != nil
        headers.withUnsafeBufferPointer { headers in
        for index in headers.indices {
            let lineStart = used
            let header = UnsafePointer(headers.baseAddress! + index)  // invariant: index is in bounds

            let nameOK = header.pointee.name.utf8.withContiguousStorageIfAvailable { copyLowercasedName($0) }
                ?? Array(header.pointee.name.utf8).withUnsafeBufferPointer { copyLowercasedName($0) }
            if !nameOK, problem == nil { problem = .invalidName(header.pointee.name) }
            let nameLength = used &- lineStart
            switch nameLength {
            case 4 where matches(lineStart, "host"):
                sawHost = true
            case 10 where matches(lineStart, "x-amz-date"), 13 where matches(lineStart, "authorization"):
                used = lineStart
                continue
            case 20 where signerHeaders.replacesToken && matches(lineStart, "x-amz-security-token"),
                20 where dropsContentHash && matches(lineStart, "x-amz-content-sha256"):
                used = lineStart
                continue
            default:
                break
            }
            base[used] = UInt8(ascii: ":")
            used &+= 1
            let valueOK = header.pointee.value.utf8.withContiguousStorageIfAvailable { copyTrimmedValue($0) }
                ?? Array(header.pointee.value.utf8).withUnsafeBufferPointer { copyTrimmedValue($0) }
            if !valueOK, problem == nil { problem = .invalidValue(header.pointee.name) }
            base[used] = UInt8(ascii: "\n")
            used &+= 1
            addSlot(lineStart: lineStart, nameLength: nameLength)
        }
        }
        if !sawHost, problem == nil { problem = .missingHost }
        if let date = signerHeaders.amzDate { add("x-amz-date", date) }
        if var token = signerHeaders.securityToken { token.withUTF8 { add("x-amz-security-token", UnsafeRawBufferPointer($0)) } }
        if let hash = signerHeaders.contentSHA256 { add("x-amz-content-sha256", hash) }
        return problem
    }

    /// Stable insertion sort by name (few headers; repeated names keep their order).
    mutating func sort() {
        guard slotCount > 1 else { return }
        for i in 1..<slotCount {
            let slot = slots[i]
            var j = i &- 1
            while j >= 0 && precedes(slot, slots[j]) {
                slots[j &+ 1] = slots[j]
                j &-= 1
            }
            slots[j &+ 1] = slot
        }
    }

    /// The lines in order — a repeated name's values joined with `,` on its first line — then `\n`,
    /// the signed-header list and `\n`; returns the range of the list in `out`.
    func write(into out: inout OutputCursor) -> Range<Int> {
        let buffer = UnsafeBufferPointer(scratch)
        // Repeated names (rare) are adjacent after the sort; without them every slot is one line.
        var repeats = false
        var k = 1
        while k < slotCount {
            if sameName(slots[k], slots[k &- 1]) { repeats = true }
            k &+= 1
        }
        if !repeats {
            for index in 0..<slotCount {
                let line = slots[index].line
                out.writeWords(base + line.lowerBound, count: line.count, sourceSlack: scratch.count &- line.upperBound)
            }
            out.writeByte(UInt8(ascii: "\n"))
            let start = out.position
            for index in 0..<slotCount {
                if index > 0 { out.writeByte(UInt8(ascii: ";")) }
                let name = slots[index].name
                out.writeWords(base + name.lowerBound, count: name.count, sourceSlack: scratch.count &- name.upperBound)
            }
            let end = out.position
            out.writeByte(UInt8(ascii: "\n"))
            return start..<end
        }
        var i = 0
        while i < slotCount {
            var j = i &+ 1
            while j < slotCount && sameName(slots[j], slots[i]) { j &+= 1 }
            if j == i &+ 1 {
                let line = slots[i].line
                out.writeWords(base + line.lowerBound, count: line.count, sourceSlack: scratch.count &- line.upperBound)
            } else {
                out.write(buffer, slots[i].name)
                out.writeByte(UInt8(ascii: ":"))
                for k in i..<j {
                    if k > i { out.writeByte(UInt8(ascii: ",")) }
                    out.write(buffer, slots[k].value)
                }
                out.writeByte(UInt8(ascii: "\n"))
            }
            i = j
        }
        out.writeByte(UInt8(ascii: "\n"))
        let start = out.position
        i = 0
        while i < slotCount {
            if i > 0 { out.writeByte(UInt8(ascii: ";")) }
            let name = slots[i].name
            out.writeWords(base + name.lowerBound, count: name.count, sourceSlack: scratch.count &- name.upperBound)
            var j = i &+ 1
            while j < slotCount && sameName(slots[j], slots[i]) { j &+= 1 }
            i = j
        }
        let end = out.position
        out.writeByte(UInt8(ascii: "\n"))
        return start..<end
    }

    // MARK: - Pieces

    /// Copies a name lower-cased; returns whether it is a non-empty HTTP token (RFC 9110 §5.6.2).
    /// Eight bytes at a time while they are letters, digits or `-` (SWAR); any other byte goes
    /// through the exact per-byte check.
    @inline(__always)
    private mutating func copyLowercasedName(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var ok: UInt64 = bytes.isEmpty ? 0 : 1
        var position = used
        var index = 0
        let count = bytes.count
        if let source = UnsafeRawPointer(bytes.baseAddress) {
            while index &+ 8 <= count {
                let word = source.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                guard let lowered = SWAR.lowercasedIfSimpleToken(UInt64(littleEndian: word)) else { break }
                UnsafeMutableRawPointer(base + position).storeBytes(of: UInt64(littleEndian: lowered), as: UInt64.self)
                position &+= 8
                index &+= 8
            }
            // The last one to seven bytes as one word padded with `a` (a token byte); all eight bytes
            // are stored, and the padding is overwritten by what follows (the scratch has the room).
            let rest = count &- index
            if rest > 0 && rest < 8,
                let lowered = SWAR.lowercasedIfSimpleToken(SWAR.loadPartial(source, offset: index, count: rest, padding: UInt8(ascii: "a")))
            {
                UnsafeMutableRawPointer(base + position).storeBytes(of: UInt64(littleEndian: lowered), as: UInt64.self)
                position &+= rest
                index = count
            }
        }
        while index < count {
            let byte = bytes[index]
            ok &= ASCIISet.token.memberBit(byte)
            base[position] = asciiLowercase(byte)
            position &+= 1
            index &+= 1
        }
        used = position
        return ok != 0
    }

    /// Copies a header value trimmed with runs of spaces and tabs collapsed to one space (SigV4
    /// "Trimall"); returns whether it was free of control bytes (0x00–0x1F other than HTAB, and 0x7F).
    @inline(__always)
    private mutating func copyTrimmedValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = used
        var position = start
        var pendingSpace = false
        var valid = true
        var index = 0
        let count = bytes.count
        if let source = UnsafeRawPointer(bytes.baseAddress) {
            while true {
                // Eight bytes at a time while none is a space, tab or control byte (all <= 0x20) or DEL.
                while index &+ 8 <= count {
                    let word = source.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    if SWAR.hasByteAtMost0x20OrDEL(UInt64(littleEndian: word)) { break }
                    if pendingSpace {
                        base[position] = UInt8(ascii: " ")
                        position &+= 1
                        pendingSpace = false
                    }
                    UnsafeMutableRawPointer(base + position).storeBytes(of: word, as: UInt64.self)
                    position &+= 8
                    index &+= 8
                }
                // The last one to seven bytes as one word padded with `a`, when none of them is special.
                let rest = count &- index
                if rest > 0 && rest < 8 {
                    let word = SWAR.loadPartial(source, offset: index, count: rest, padding: UInt8(ascii: "a"))
                    if !SWAR.hasByteAtMost0x20OrDEL(word) {
                        if pendingSpace {
                            base[position] = UInt8(ascii: " ")
                            position &+= 1
                            pendingSpace = false
                        }
                        UnsafeMutableRawPointer(base + position).storeBytes(of: UInt64(littleEndian: word), as: UInt64.self)
                        position &+= rest
                        index = count
                    }
                }
                // Then byte by byte up to the next eight-byte boundary of the source, or the end.
                let stop = Swift.min(count, (index &+ 8) & ~7)
                if index >= stop { break }
                while index < stop {
                    let byte = source.load(fromByteOffset: index, as: UInt8.self)
                    index &+= 1
                    if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                        pendingSpace = position > start
                    } else {
                        if pendingSpace {
                            base[position] = UInt8(ascii: " ")
                            position &+= 1
                        }
                        pendingSpace = false
                        valid = valid && byte >= 0x20 && byte != 0x7F  // tab was handled above
                        base[position] = byte
                        position &+= 1
                    }
                }
            }
        }
        used = position
        return valid
    }

    /// Adds one of the signer's headers (already canonical).
    private mutating func add(_ name: StaticString, _ value: UnsafeRawBufferPointer) {
        let lineStart = used
        name.withUTF8Buffer { for byte in $0 { base[used] = byte; used &+= 1 } }
        base[used] = UInt8(ascii: ":")
        used &+= 1
        for byte in value { base[used] = byte; used &+= 1 }
        base[used] = UInt8(ascii: "\n")
        used &+= 1
        addSlot(lineStart: lineStart, nameLength: name.utf8CodeUnitCount)
    }

    @inline(__always)
    private mutating func addSlot(lineStart: Int, nameLength: Int) {
        slots[slotCount] = HeaderSlot(line: lineStart..<used, nameLength: nameLength, key: sortKey(lineStart, nameLength))
        slotCount &+= 1
    }

    @inline(__always)
    private func matches(_ start: Int, _ name: StaticString) -> Bool {
        let expected = name.utf8Start
        var i = 0
        while i < name.utf8CodeUnitCount {
            if base[start &+ i] != expected[i] { return false }
            i &+= 1
        }
        return true
    }

    /// The first eight name bytes as a big-endian number, zero-padded.
    @inline(__always)
    private func sortKey(_ start: Int, _ length: Int) -> UInt64 {
        // The line always extends past the name (":" and "\n"), and the scratch 16 bytes past the
        // last line, so an eight-byte load from the name's start stays inside the scratch.
        let word = UInt64(bigEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
        return length >= 8 ? word : length == 0 ? 0 : word & ~(UInt64.max &>> UInt64(length &* 8))
    }

    @inline(__always)
    private func precedes(_ a: HeaderSlot, _ b: HeaderSlot) -> Bool {
        if a.key != b.key { return a.key < b.key }
        return bytesLess(UnsafeBufferPointer(scratch), a.name, b.name)
    }

    @inline(__always)
    private func sameName(_ a: HeaderSlot, _ b: HeaderSlot) -> Bool {
        a.key == b.key && a.nameLength == b.nameLength && bytesEqual(UnsafeBufferPointer(scratch), a.name, b.name)
    }
}
