/// Canonical header lines, built by one SWAR table for every signature scheme, each a policy:
///
/// ```
/// CanonicalHeaders = (lowercase(name) ":" value[,value…] "\n")*   sorted by name (bytes), stable
/// SignedHeaders    = lowercase(name) (";" lowercase(name))*       (SigV4)
/// ```
///
/// - SigV4 (AWS General Reference, "Create a canonical request for Signature Version 4", steps 4–5):
///   every field but `Authorization` and the signer's own, values trimmed with inner runs of spaces
///   and tabs collapsed ("trimall"), `Host` required.
/// - OSS V4 ("Signature Version 4", canonical headers): `x-oss-*`, `content-type`, `content-md5` and
///   the additional headers, values verbatim.
/// - OSS V1 (`CanonicalizedOSSHeaders`): `x-oss-*`, values verbatim.
/// - Alibaba Cloud ACS3 ("Request syntax and signature method V3", CanonicalHeaders): `host`,
///   `content-type` and `x-acs-*`, values with leading and trailing spaces and tabs removed.
///
/// One pass writes each field's finished line (`name:value\n`) into stack scratch, eight bytes at a
/// time where it can; an insertion sort orders small slots; the lines are then copied out whole.
/// No per-header strings, no closures that capture mutable state.

/// How a scheme writes a header value in its canonical line.
enum CanonicalHeaderValueForm {
    /// As given (OSS).
    case verbatim
    /// Leading and trailing spaces and tabs removed, the inside as given (ACS3).
    case trimmedEnds
    /// Trimmed, and each inner run of spaces and tabs collapsed to one space (SigV4 "Trimall").
    case trimmedAll
}

/// Which fields a scheme signs.
protocol CanonicalHeaderPolicy {
    /// How values are written.
    static var valueForm: CanonicalHeaderValueForm { get }
    /// Whether a request without `Host` is a ``CanonicalHeaderProblem/missingHost``.
    static var requiresHost: Bool { get }
    /// The signer's own header names (date, session token, content hash, nonce), lower case; a
    /// scheme without one of them names it `""` (its signer never passes that value).
    static var signerNames: (date: StaticString, token: StaticString, contentHash: StaticString, nonce: StaticString) {
        get
    }
    /// Whether the field whose lower-cased name is the `count` bytes at `name` is signed: false for
    /// names outside the scheme's set and for the names the signer writes itself.
    func signs(_ name: UnsafePointer<UInt8>, count: Int) -> Bool
}

/// A header the request cannot be signed with. A field is named by its index in the request's
/// headers, so the problem is a plain value (no string to copy or release on the signing path).
package enum CanonicalHeaderProblem {
    case invalidName(header: Int)
    case invalidValue(header: Int)
    case missingHost
    case controlCharactersInTarget

    /// The error, naming the field from `headers` (the list the problem was found in).
    func error(_ headers: [HTTPHeader]) -> AuthCoreError {
        func name(_ index: Int) -> String { headers.indices.contains(index) ? headers[index].name : "#\(index)" }
        return switch self {
        case .invalidName(let index):
            AuthCoreError(.malformedRequest, "header name '\(name(index))' is not an HTTP token")
        case .invalidValue(let index):
            AuthCoreError(
                .malformedRequest,
                "header '\(name(index))' has a control byte in its value (0x00-0x1F other than tab, or 0x7F)"
            )
        case .missingHost: AuthCoreError(.malformedRequest, "the Host header is required (the signature covers it)")
        case .controlCharactersInTarget: AuthCoreError(.malformedRequest, "request target contains control characters")
        }
    }
}

/// The headers a signer contributes itself (values already canonical), under its policy's
/// ``CanonicalHeaderPolicy/signerNames``.
package struct SignerHeaderValues {
    package var date: UnsafeRawBufferPointer?
    /// The session token's UTF-8 bytes, valid only while their lender lives: a SigV4 signer's
    /// ``SessionTokenBytes``, or ``withTokenBytes(_:_:)`` for the length of its closure.
    var securityToken: UnsafeRawBufferPointer?
    var contentHash: UnsafeRawBufferPointer?
    /// A once-only request identifier (ACS3 `x-acs-signature-nonce`).
    var nonce: UnsafeRawBufferPointer?
    /// Drop the request's own session-token field (the signer adds or omits the token).
    var replacesToken = false

    /// Whether the canonical form holds a session token (the request's own, or the signer's), so
    /// temporary copies of it are wiped.
    var holdsSecret: Bool { securityToken != nil || replacesToken }

    /// Bytes these headers take as lines (`name:value\n`; names are at most 21 bytes).
    @inline(__always)
    var lineBytes: Int {
        (date.map { 22 + $0.count } ?? 0) + (securityToken.map { 22 + $0.count } ?? 0)
            + (contentHash.map { 22 + $0.count } ?? 0)
            + (nonce.map { 22 + $0.count } ?? 0)
    }

    /// How many headers a signer adds at most (date, token, content hash, nonce): the table's slots
    /// beyond the request's own.
    static var maximumCount: Int { 4 }

    package static var none: SignerHeaderValues { SignerHeaderValues() }
    package init(
        date: UnsafeRawBufferPointer? = nil,
        securityToken: UnsafeRawBufferPointer? = nil,
        contentHash: UnsafeRawBufferPointer? = nil,
        nonce: UnsafeRawBufferPointer? = nil,
        replacesToken: Bool = false
    ) {
        self.date = date
        self.securityToken = securityToken
        self.contentHash = contentHash
        self.nonce = nonce
        self.replacesToken = replacesToken
    }

    /// Passes the UTF-8 bytes of `token` (nil without one) to `body`: the form ``securityToken``
    /// takes, so these values are plain (copying them touches no reference count).
    @inline(__always)
    static func withTokenBytes<R>(_ token: String?, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard var token else { return body(nil) }
        return token.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}

/// Builds canonical header lines into an ``OutputCursor``.
enum CanonicalHeaders {
    /// Collects, sorts and passes the table to `body` (which writes lines and names from it), with
    /// the first problem found; the scratch is wiped afterwards when it held a secret.
    @inline(__always)
    static func withTable<P: CanonicalHeaderPolicy, R>(
        _ headers: [HTTPHeader],
        fieldBytes: Int? = nil,
        policy: P,
        signer: SignerHeaderValues,
        _ body: (CanonicalHeaderTable<P>, CanonicalHeaderProblem?) -> R
    ) -> R {
        let bytes = fieldBytes ?? HTTPHeader.utf8Counts(headers).both
        let capacity = CanonicalHeaderTable<P>.scratchCapacity(
            fieldBytes: bytes,
            fieldCount: headers.count,
            signerLineBytes: signer.lineBytes
        )
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            withUnsafeTemporaryAllocation(
                of: HeaderSlot.self,
                capacity: headers.count &+ SignerHeaderValues.maximumCount
            ) { slots in
                var table = CanonicalHeaderTable(scratch: scratch, slots: slots, policy: policy)
                let problem = table.collect(headers, signer: signer)
                table.sort()
                let result = body(table, problem)
                // a token's copy
                if signer.holdsSecret || table.copiedSecret { secureZero(UnsafeMutableRawBufferPointer(scratch)) }
                return result
            }
        }
    }

    /// ``withTable(_:fieldBytes:policy:signer:_:)`` with an output buffer of
    /// `outputCapacity` bytes carved from the same stack allocation (one allocation, one closure
    /// level on the hot path); the whole allocation is wiped afterwards when it held a secret (the
    /// signer's session token, a request field named as a credential, or — `outputHoldsSecret` —
    /// something secret the caller writes, such as a presigned URL's token parameter).
    @inline(__always)
    static func withTable<P: CanonicalHeaderPolicy, R>(
        _ headers: [HTTPHeader],
        fieldBytes: Int,
        policy: P,
        signer: SignerHeaderValues,
        outputCapacity: Int,
        outputHoldsSecret: Bool = false,
        _ body: (CanonicalHeaderTable<P>, CanonicalHeaderProblem?, inout OutputCursor) -> R
    ) -> R {
        let scratchCapacity = CanonicalHeaderTable<P>.scratchCapacity(
            fieldBytes: fieldBytes,
            fieldCount: headers.count,
            signerLineBytes: signer.lineBytes
        )
        let slotCount = headers.count &+ SignerHeaderValues.maximumCount
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scratchCapacity &+ outputCapacity) { bytes in
            @inline(__always) func build(_ slots: UnsafeMutableBufferPointer<HeaderSlot>) -> R {
                var table = CanonicalHeaderTable(
                    scratch: UnsafeMutableBufferPointer(rebasing: bytes[..<scratchCapacity]),
                    slots: slots,
                    policy: policy
                )
                let problem = table.collect(headers, signer: signer)
                table.sort()
                var out = OutputCursor(buffer: UnsafeMutableBufferPointer(rebasing: bytes[scratchCapacity...]))
                let result = body(table, problem, &out)
                if signer.holdsSecret || table.copiedSecret || outputHoldsSecret {
                    secureZero(UnsafeMutableRawBufferPointer(bytes))
                }  // a token's copies
                return result
            }
            // A fixed count for the common case: a constant-size stack block, no run-time size check.
            if slotCount <= 16 {
                return withUnsafeTemporaryAllocation(of: HeaderSlot.self, capacity: 16) {
                    build(UnsafeMutableBufferPointer(rebasing: $0[..<slotCount]))
                }
            }
            return withUnsafeTemporaryAllocation(of: HeaderSlot.self, capacity: slotCount, build)
        }
    }

    /// The upper bound of the canonical lines' bytes for `headers` and `signer` (for sizing outputs):
    /// every field's line is at most name + value + 2 bytes.
    static func lineBytes(fieldBytes: Int, fieldCount: Int, signer: SignerHeaderValues) -> Int {
        fieldBytes &+ 2 &* fieldCount &+ signer.lineBytes
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
///
/// Memory safety: the scratch holds every line (name + value + 2 per field, plus the signer's lines)
/// and ``wordSlack`` bytes more (``scratchCapacity(fieldBytes:fieldCount:signerLineBytes:)``). The
/// eight-byte stores of a name or value overshoot its end by at most seven bytes, and the sort
/// keys' eight-byte loads start at most one byte before a line's end; each copy function checks its
/// own room (bytes, separator and overshoot) before it stores, and `sortKey` its load.
struct CanonicalHeaderTable<Policy: CanonicalHeaderPolicy> {
    /// Bytes past the last line that word-wide stores and loads may touch.
    static var wordSlack: Int { 16 }

    static func scratchCapacity(fieldBytes: Int, fieldCount: Int, signerLineBytes: Int) -> Int {
        fieldBytes &+ 2 &* fieldCount &+ signerLineBytes &+ wordSlack
    }

    let scratch: UnsafeMutableBufferPointer<UInt8>
    let base: UnsafeMutablePointer<UInt8>
    let slots: UnsafeMutableBufferPointer<HeaderSlot>
    let policy: Policy
    var used = 0
    var slotCount = 0
    /// Whether a line holds a credential (a request field named as one,
    /// ``HTTPHeader/isCredentialName(lowercased:count:)``:
    /// a session token, a cookie, `Proxy-Authorization`): the scratch and any output holding the lines are wiped
    /// afterwards.
    private(set) var copiedSecret = false
    /// Whether no two lines share a name (set by ``sort()``, which every user calls before writing).
    private(set) var namesAreDistinct = true

    init(scratch: UnsafeMutableBufferPointer<UInt8>, slots: UnsafeMutableBufferPointer<HeaderSlot>, policy: Policy) {
        precondition(scratch.count >= Self.wordSlack, "canonical header scratch too small")
        self.scratch = scratch
        self.base = scratch.baseAddress!  // invariant: checked above, the scratch is never empty
        self.slots = slots
        self.policy = policy
    }

    /// Writes each signed field's line into the scratch — name lower-cased, value trimmed or verbatim
    /// per the policy — then the signer's own headers; returns the first problem: a name that is not
    /// an HTTP token, a value with a control byte (0x00–0x1F other than HTAB, or 0x7F: RFC 9110 §5.5
    /// field-value), or no `Host` when the policy requires it.
    mutating func collect(_ headers: [HTTPHeader], signer: SignerHeaderValues) -> CanonicalHeaderProblem? {
        var problem: CanonicalHeaderProblem?
        var sawHost = false
        headers.withUnsafeBufferPointer { headers in
            for index in headers.indices {
                let lineStart = used
                let header = UnsafePointer(headers.baseAddress! + index)  // invariant: index is in bounds
                // Each copy checks its own room (bytes, separator and word overshoot) before it stores.
                let nameOK =
                    header.pointee.name.utf8.withContiguousStorageIfAvailable { copyLowercasedName($0) }
                    ?? Array(header.pointee.name.utf8).withUnsafeBufferPointer { copyLowercasedName($0) }
                let nameLength = used &- lineStart
                if Policy.requiresHost, nameLength == 4, asciiEqual(base + lineStart, 4, "host") { sawHost = true }
                guard policy.signs(base + lineStart, count: nameLength) else {
                    used = lineStart
                    continue
                }
                if HTTPHeader.isCredentialName(lowercased: base + lineStart, count: nameLength) {
                    copiedSecret = true  // a session token, cookie or proxy credential: the caller wipes the scratch
                }
                if !nameOK, problem == nil { problem = .invalidName(header: index) }
                base[used] = UInt8(ascii: ":")
                used &+= 1
                let valueOK: Bool
                switch Policy.valueForm {
                case .trimmedAll:
                    valueOK =
                        header.pointee.value.utf8.withContiguousStorageIfAvailable { copyTrimmedValue($0) }
                        ?? Array(header.pointee.value.utf8).withUnsafeBufferPointer { copyTrimmedValue($0) }
                case .trimmedEnds:
                    valueOK =
                        header.pointee.value.utf8.withContiguousStorageIfAvailable { copyValueTrimmingEnds($0) }
                        ?? Array(header.pointee.value.utf8).withUnsafeBufferPointer { copyValueTrimmingEnds($0) }
                case .verbatim:
                    valueOK =
                        header.pointee.value.utf8.withContiguousStorageIfAvailable { copyVerbatimValue($0) }
                        ?? Array(header.pointee.value.utf8).withUnsafeBufferPointer { copyVerbatimValue($0) }
                }
                if !valueOK, problem == nil { problem = .invalidValue(header: index) }
                base[used] = UInt8(ascii: "\n")
                used &+= 1
                addSlot(lineStart: lineStart, nameLength: nameLength)
            }
        }
        if Policy.requiresHost, !sawHost, problem == nil { problem = .missingHost }
        let names = Policy.signerNames
        if let date = signer.date { add(names.date, date) }
        if let token = signer.securityToken { add(names.token, token) }
        if let hash = signer.contentHash { add(names.contentHash, hash) }
        if let nonce = signer.nonce { add(names.nonce, nonce) }
        return problem
    }

    /// Stable insertion sort by name (few headers; repeated names keep their order); then notes
    /// whether any name repeats (rare: most requests take the writers' fast paths).
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
        var k = 1
        while k < slotCount {
            if sameName(slots[k], slots[k &- 1]) {
                namesAreDistinct = false
                return
            }
            k &+= 1
        }
    }

    /// The lines in order, a repeated name's values joined with `,` on its first line.
    func writeLines(into out: inout OutputCursor) {
        let buffer = UnsafeBufferPointer(scratch)
        if namesAreDistinct {
            for index in 0..<slotCount {
                let line = slots[index].line
                out.writeWords(base + line.lowerBound, count: line.count, sourceSlack: scratch.count &- line.upperBound)
            }
            return
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
    }

    /// The distinct names joined with `;` (SigV4's signed-header list); returns their range in `out`.
    func writeNames(into out: inout OutputCursor) -> Range<Int> {
        let start = out.position
        if namesAreDistinct {
            for index in 0..<slotCount {
                if index > 0 { out.writeByte(UInt8(ascii: ";")) }
                let name = slots[index].name
                out.writeWords(base + name.lowerBound, count: name.count, sourceSlack: scratch.count &- name.upperBound)
            }
            return start..<out.position
        }
        var i = 0
        while i < slotCount {
            if i > 0 { out.writeByte(UInt8(ascii: ";")) }
            let name = slots[i].name
            out.writeWords(base + name.lowerBound, count: name.count, sourceSlack: scratch.count &- name.upperBound)
            var j = i &+ 1
            while j < slotCount && sameName(slots[j], slots[i]) { j &+= 1 }
            i = j
        }
        return start..<out.position
    }

    /// The lines in order, a newline, then the distinct names joined with `;` (the layout of a
    /// SigV4 or ACS3 canonical request); returns the names' range in `out`.
    ///
    /// When no name repeats (almost every request), one walk over the sorted slots writes each line
    /// and its name: the lines take exactly the scratch's `used` bytes, so the names' place is known
    /// before the first line is written. Each side's eight-byte stores stay inside their own region:
    /// the lines' cursor ends where the lines end (a store that would pass it copies exactly), so no
    /// line's overshoot reaches a name already written; a name's overshoot lands on the next name, or
    /// past the list on bytes the caller writes next.
    func writeLinesThenNames(into out: inout OutputCursor) -> Range<Int> {
        guard namesAreDistinct, slotCount > 0 else {
            writeLines(into: &out)
            out.writeByte(UInt8(ascii: "\n"))
            return writeNames(into: &out)
        }
        let linesEnd = out.position &+ used
        // invariant: callers size buffers from their inputs
        precondition(linesEnd < out.buffer.count, "output buffer too small")
        var lines = OutputCursor(buffer: UnsafeMutableBufferPointer(rebasing: out.buffer[..<linesEnd]))
        lines.position = out.position
        var names = OutputCursor(buffer: out.buffer)
        names.position = linesEnd &+ 1
        let namesStart = names.position
        let scratchCount = scratch.count
        for index in 0..<slotCount {
            let slot = slots[index]
            if index > 0 { names.writeByte(UInt8(ascii: ";")) }
            names.writeWords(
                base + slot.line.lowerBound,
                count: slot.nameLength,
                sourceSlack: scratchCount &- slot.line.lowerBound &- slot.nameLength
            )
            lines.writeWords(
                base + slot.line.lowerBound,
                count: slot.line.count,
                sourceSlack: scratchCount &- slot.line.upperBound
            )
        }
        out.buffer[linesEnd] = UInt8(ascii: "\n")
        out.position = names.position
        return namesStart..<names.position
    }

    /// Adds one of the signer's headers (already canonical; room counted in ``SignerHeaderValues/lineBytes``).
    private mutating func add(_ name: StaticString, _ value: UnsafeRawBufferPointer) {
        let lineStart = used
        precondition(
            used &+ name.utf8CodeUnitCount &+ value.count &+ 2 <= scratch.count,
            "canonical header scratch too small"
        )
        name.withUTF8Buffer { copy(UnsafeRawBufferPointer($0)) }
        base[used] = UInt8(ascii: ":")
        used &+= 1
        copy(value)
        base[used] = UInt8(ascii: "\n")
        used &+= 1
        addSlot(lineStart: lineStart, nameLength: name.utf8CodeUnitCount)
    }

    // MARK: - Pieces

    /// Copies `bytes` at the end of the lines (room checked by the caller).
    @inline(__always)
    private mutating func copy(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        UnsafeMutableRawPointer(base + used).copyMemory(from: source, byteCount: bytes.count)
        used &+= bytes.count
    }

    /// Copies a name lower-cased; returns whether it is a non-empty HTTP token (RFC 9110 §5.6.2).
    /// Eight bytes at a time while they are letters, digits or `-` (SWAR); any other byte goes
    /// through the exact per-byte check.
    @inline(__always)
    private mutating func copyLowercasedName(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Room: the name, the `:` after it, and the overshoot of the last word store (at most 7).
        precondition(used &+ bytes.count &+ 8 <= scratch.count, "canonical header scratch too small")
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
            // are stored, and the padding is overwritten by what follows (room checked above).
            let rest = count &- index
            if rest > 0 && rest < 8,
                let lowered = SWAR.lowercasedIfSimpleToken(
                    SWAR.loadPartial(source, offset: index, count: rest, padding: UInt8(ascii: "a"))
                )
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

    /// Copies a header value as it is (OSS); returns whether it was free of control bytes.
    @inline(__always)
    private mutating func copyVerbatimValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // the value and `\n`
        precondition(used &+ bytes.count &+ 1 <= scratch.count, "canonical header scratch too small")
        var valid = true
        for byte in bytes {
            valid = valid && (byte >= 0x20 || byte == 0x09) && byte != 0x7F
            base[used] = byte
            used &+= 1
        }
        return valid
    }

    /// Copies a header value without its leading and trailing spaces and tabs, the inside as it is
    /// (ACS3); returns whether it was free of control bytes (0x00–0x1F other than HTAB, and 0x7F).
    @inline(__always)
    private mutating func copyValueTrimmingEnds(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        @inline(__always) func isBlank(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
        }
        var start = 0
        var end = bytes.count
        while start < end && isBlank(bytes[start]) { start &+= 1 }
        while end > start && isBlank(bytes[end &- 1]) { end &-= 1 }
        return copyVerbatimValue(UnsafeBufferPointer(rebasing: bytes[start..<end]))
    }

    /// Copies a header value trimmed with runs of spaces and tabs collapsed to one space (SigV4
    /// "Trimall"); returns whether it was free of control bytes (0x00–0x1F other than HTAB, and 0x7F).
    @inline(__always)
    private mutating func copyTrimmedValue(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Room: the value (trimming only shortens it), the `\n` after it, and the overshoot of the
        // last word store (at most 7).
        precondition(used &+ bytes.count &+ 8 <= scratch.count, "canonical header scratch too small")
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
                        UnsafeMutableRawPointer(base + position).storeBytes(
                            of: UInt64(littleEndian: word),
                            as: UInt64.self
                        )
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

    @inline(__always)
    private mutating func addSlot(lineStart: Int, nameLength: Int) {
        slots[slotCount] = HeaderSlot(
            line: lineStart..<used,
            nameLength: nameLength,
            key: sortKey(lineStart, nameLength)
        )
        slotCount &+= 1
    }

    /// The first eight name bytes as a big-endian number, zero-padded.
    @inline(__always)
    private func sortKey(_ start: Int, _ length: Int) -> UInt64 {
        // The scratch extends `wordSlack` bytes past the last line (scratchCapacity), so an
        // eight-byte load from any name's start stays inside it.
        precondition(start &+ 8 <= scratch.count, "canonical header scratch too small")
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
