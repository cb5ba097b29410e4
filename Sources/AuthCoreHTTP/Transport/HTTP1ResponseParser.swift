public import AuthCore

/// An incremental HTTP/1.1 response parser with its limits enforced as bytes arrive (RFC 9112).
///
/// Fed whatever the connection read, in pieces of any size. It holds at most
/// `maximumHeadBytes` of status line and fields (and as much again of trailers), and at most
/// `maximumBodyBytes` of body: a `Content-Length` or chunk size over the cap is refused when it is
/// read, before the bytes it announces, and a body that grows past the cap is refused before it is
/// kept. So memory stays within the caps whatever the peer sends.
///
/// Framing (RFC 9112 §6.3): no body for `HEAD`, for 1xx/204/304, and none read for `CONNECT` (the tunnel, or a refusal,
/// follows the head); a `Transfer-Encoding` whose last
/// coding is `chunked` is decoded (§7.1, extensions ignored, trailers read and dropped); any other
/// `Transfer-Encoding`, and an answer without `Content-Length`, runs until the peer closes;
/// otherwise exactly `Content-Length` bytes, which must be one decimal value (repeats must agree).
/// Interim 1xx answers (other than 101) are skipped, at most ``maximumInterimAnswers`` of them; a
/// chunk-size line (size, extensions) is at most ``maximumChunkLineBytes``. A field line that starts
/// with white space (obsolete folding) or has white space before its colon is refused (§5.1, §5.2).
/// Field values are split at `,` bytes (a comma joined to a neighbour in one grapheme cluster is
/// still a comma to every other reader).
public struct HTTP1ResponseParser: Sendable {
    /// Why a response cannot be accepted.
    public enum Failure: Error, Sendable, Equatable {
        /// `Content-Length` announces more body than the cap.
        case announcedTooLarge(UInt64)
        /// The body grew past the cap (or a chunk size would take it past).
        case bodyTooLarge
        /// Status line and fields (or trailers) exceed their cap.
        case headTooLarge
        /// Not HTTP/1.x framing; the text says what was wrong.
        case malformed(String)
        /// The peer closed the connection before the response ended.
        case truncated
        /// The ``bodySink`` refused the body (a full disk).
        case sinkFailed(AuthCoreError)
    }

    /// Where the parser is.
    private enum State: Sendable {
        case head
        case fixedLength(remaining: Int)
        case chunkSize(value: UInt64, digits: Int, phase: ChunkSizePhase)
        case chunkData(remaining: Int)
        case chunkDataEnd(sawCR: Bool)
        case trailers
        case untilClose
        case complete
    }

    /// Where a chunk-size line is.
    private enum ChunkSizePhase: Sendable { case digits, whitespace, `extension`, lineFeed }

    /// The most bytes of status line and fields accepted.
    public let maximumHeadBytes: Int
    /// The most body bytes accepted.
    public let maximumBodyBytes: Int
    private let requestMethodIsHead: Bool
    private let requestMethodIsConnect: Bool
    private var state = State.head
    private var pending: [UInt8] = []  // head or trailer bytes not yet ended by an empty line
    private var trailerBytes = 0
    private var interimAnswers = 0
    private var chunkLineBytes = 0

    /// The most interim (1xx) answers skipped before the final one: a server that sends them
    /// endlessly is refused, not followed.
    public static let maximumInterimAnswers = 16
    /// The longest chunk-size line, extensions included.
    public static let maximumChunkLineBytes = 4096

    /// The status code, once the head is parsed.
    public private(set) var status = 0
    /// The fields in the order received (repeated names kept), once the head is parsed.
    public private(set) var headers: [HTTPHeader] = []
    /// The body received so far.
    public private(set) var body: [UInt8] = []
    /// Where the body of a 2xx answer goes instead of ``body``, as it arrives (the cap still counts).
    public var bodySink: (@Sendable (UnsafeRawBufferPointer) throws(AuthCoreError) -> Void)?
    /// The body bytes given to ``bodySink``.
    public private(set) var sunkBytes = 0
    private var sinksBody: Bool { bodySink != nil && (200..<300).contains(status) }
    /// The most body bytes kept in memory: the cap, or with a sink (whose cap may be large: a
    /// download) at most 1 MiB of an answer that is not 2xx (an error document).
    private var bufferCap: Int { bodySink != nil ? Swift.min(maximumBodyBytes, 1 << 20) : maximumBodyBytes }
    /// The `x` of the answer's `HTTP/1.x`, once the head is parsed.
    public private(set) var minorVersion = 0

    /// Whether, once complete, the connection may carry another request (RFC 9112 §9.3): an
    /// HTTP/1.1 answer without a `close` connection option whose body was delimited by its length or
    /// its chunks, with no framing doubt. Not after an answer to `HEAD` or `CONNECT`, a 204 or 304
    /// that announces a body, or `Transfer-Encoding` with `Content-Length` (§6.3): bytes a server
    /// sent after such an answer would be read as the next request's answer.
    public var allowsReuse: Bool {
        guard isComplete, minorVersion >= 1, !endsAtClose, !requestMethodIsHead, !requestMethodIsConnect else {
            return false
        }
        let codings = headers.contains { $0.hasName("transfer-encoding") }
        let lengths = headers.filter { $0.hasName("content-length") }
        if codings && !lengths.isEmpty { return false }
        if status == 204 || status == 304, codings || lengths.contains(where: { $0.value != "0" }) { return false }
        return !headers.contains { field in
            field.hasName("connection")
                && Array(field.value.utf8).split(separator: UInt8(ascii: ",")).contains {
                    equalIgnoringASCIICase(Self.trimmingASCIIWhitespace($0), "close".utf8)
                }
        }
    }

    /// The idle time the server says it keeps the connection (`Keep-Alive: timeout=N`, RFC 2068
    /// §19.7.1.1, still sent by Apache and nginx), or nil.
    public var keepAliveTimeout: Duration? {
        for field in headers where field.hasName("keep-alive") {
            for parameter in Array(field.value.utf8).split(separator: UInt8(ascii: ",")) {
                let trimmed = Self.trimmingASCIIWhitespace(parameter)
                guard let equals = trimmed.firstIndex(of: UInt8(ascii: "=")),
                    equalIgnoringASCIICase(Self.trimmingASCIIWhitespace(trimmed[..<equals]), "timeout".utf8)
                else { continue }
                let digits = Self.trimmingASCIIWhitespace(trimmed[(equals + 1)...])
                guard (1...6).contains(digits.count),
                    digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
                else { return nil }
                return .seconds(digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
            }
        }
        return nil
    }
    private var endsAtClose = false

    /// A parser for the answer to a request with `method`.
    public init(method: String, maximumHeadBytes: Int = 64 << 10, maximumBodyBytes: Int) {
        self.maximumHeadBytes = Swift.max(0, maximumHeadBytes)
        self.maximumBodyBytes = Swift.max(0, maximumBodyBytes)
        requestMethodIsHead = method == "HEAD"
        requestMethodIsConnect = method == "CONNECT"
    }

    /// Whether the whole response has been read.
    public var isComplete: Bool {
        if case .complete = state { return true }
        return false
    }

    /// Whether the head (status line and fields) has been read.
    public var hasHead: Bool {
        if case .head = state { return false }
        return true
    }

    /// Consumes `bytes`; returns how many were used (fewer than given only once the response is
    /// complete: what follows belongs to no request, and the transport does not reuse the connection).
    @discardableResult
    public mutating func consume(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Int {
        var index = 0
        while index < bytes.count {
            switch state {
            case .complete:
                return index
            case .head:
                index += try consumeHeadBytes(bytes, from: index)
            case .trailers:
                index += try consumeTrailerBytes(bytes, from: index)
            case .fixedLength(let remaining):
                let take = Swift.min(remaining, bytes.count - index)
                try appendBody(bytes, from: index, count: take)
                index += take
                state = remaining == take ? .complete : .fixedLength(remaining: remaining - take)
            case .chunkData(let remaining):
                let take = Swift.min(remaining, bytes.count - index)
                try appendBody(bytes, from: index, count: take)
                index += take
                state = remaining == take ? .chunkDataEnd(sawCR: false) : .chunkData(remaining: remaining - take)
            case .untilClose:
                let take = bytes.count - index
                try appendBody(bytes, from: index, count: take)
                index += take
            case .chunkDataEnd(let sawCR):
                let byte = bytes[index]
                index += 1
                if !sawCR, byte == 0x0D {
                    state = .chunkDataEnd(sawCR: true)
                } else if sawCR, byte == 0x0A {
                    state = .chunkSize(value: 0, digits: 0, phase: .digits)
                } else {
                    throw .malformed("chunk data is not followed by CRLF")
                }
            case .chunkSize(let value, let digits, let phase):
                let byte = bytes[index]
                index += 1
                try consumeChunkSizeByte(byte, value: value, digits: digits, phase: phase)
            }
        }
        return index
    }

    /// The connection has ended: completes a body that runs until close.
    ///
    /// - Throws: ``Failure/truncated`` when the framing says more was to come.
    public mutating func finishAtEndOfStream() throws(Failure) {
        switch state {
        case .complete: return
        case .untilClose:
            endsAtClose = true
            completeUnannouncedBody()
        default: throw .truncated
        }
    }

    // MARK: - Pieces

    /// Room reserved ahead for a body: at most 64 MiB (the default cap), whatever a larger cap or
    /// `Content-Length` would allow. The kernel maps pages only as bytes are written, so resident
    /// memory follows the bytes received; beyond the reservation the array grows as usual.
    static let maximumReservation = 64 << 20

    /// Reserves for a body whose length is not announced (chunked, or until close): the whole cap up
    /// to ``maximumReservation``, so the usual growth by doubling, which copies and holds the old and
    /// new buffers together (measured: twice the cap with glibc's arenas), happens only past it.
    private mutating func reserveForUnannouncedBody() {
        guard !sinksBody else { return }
        body.reserveCapacity(Swift.min(bufferCap, Self.maximumReservation))
    }

    /// Ends a chunked or close-delimited body: a body that fills less than half its reservation is
    /// copied to its size (the copy and the original together stay within the reservation), and the
    /// original wiped.
    private mutating func completeUnannouncedBody() {
        state = .complete
        guard body.count < body.capacity / 2 else { return }
        let compact = body.withUnsafeBufferPointer { Array($0) }  // a real copy (Array(body) would share the buffer)
        body.withUnsafeMutableBytes { wipeSecretMemory($0) }  // bodies carry secret keys and tokens
        body = compact
    }

    /// Whether the body, once the head is read, runs until the peer closes (no length, no chunking).
    public var bodyRunsUntilClose: Bool {
        if case .untilClose = state { return true }
        return false
    }

    /// The body, moved into wiping storage (an answer that carries secrets); the parser's copy is
    /// wiped and dropped.
    public mutating func takeBodyIntoWipingStorage() -> SecureBytes {
        let taken = body.withUnsafeBytes { SecureBytes(copying: $0) }
        discardBody()
        return taken
    }

    /// Wipes and drops what was received of the body (the exchange failed).
    public mutating func discardBody() {
        body.withUnsafeMutableBytes { wipeSecretMemory($0) }
        body = []
    }

    private mutating func appendBody(_ bytes: UnsafeRawBufferPointer, from index: Int, count: Int) throws(Failure) {
        if sinksBody, let bodySink {
            guard count <= maximumBodyBytes - sunkBytes else { throw .bodyTooLarge }
            do { try bodySink(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)])) } catch {
                throw .sinkFailed(error)
            }
            sunkBytes += count
            return
        }
        // Checked before appending, so the body never holds more than the cap.
        guard count <= bufferCap - body.count else {
            body.withUnsafeMutableBytes { wipeSecretMemory($0) }
            body = []
            throw .bodyTooLarge
        }
        body.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]))
    }

    /// Appends head bytes up to the empty line that ends the head; returns how many were used.
    private mutating func consumeHeadBytes(_ bytes: UnsafeRawBufferPointer, from start: Int) throws(Failure) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard pending.count < maximumHeadBytes else { throw .headTooLarge }
            pending.append(byte)
            if byte == 0x0A, pending.count >= 4, pending[pending.count - 2] == 0x0D, pending[pending.count - 3] == 0x0A,
                pending[pending.count - 4] == 0x0D
            {
                let head = pending
                pending = []
                try parseHead(head)
                return index - start
            }
        }
        return index - start
    }

    private mutating func consumeTrailerBytes(_ bytes: UnsafeRawBufferPointer, from start: Int) throws(Failure) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            trailerBytes += 1
            guard trailerBytes <= maximumHeadBytes else { throw .headTooLarge }
            pending.append(byte)
            guard byte == 0x0A else { continue }
            // A line ended: an empty one ends the message; a trailer field is dropped.
            guard pending.count >= 2, pending[pending.count - 2] == 0x0D else {
                throw .malformed("trailer line not ended by CRLF")
            }
            let empty = pending.count == 2
            pending.removeAll(keepingCapacity: true)
            if empty {
                completeUnannouncedBody()
                return index - start
            }
        }
        return index - start
    }

    private mutating func consumeChunkSizeByte(
        _ byte: UInt8,
        value: UInt64,
        digits: Int,
        phase: ChunkSizePhase
    ) throws(Failure) {
        // chunk-size [BWS ";" chunk-ext] CRLF (RFC 9112 §7.1, §7.1.1).
        chunkLineBytes += 1
        guard chunkLineBytes <= Self.maximumChunkLineBytes else {
            throw .malformed("chunk size line longer than \(Self.maximumChunkLineBytes) bytes")
        }
        switch phase {
        case .lineFeed:
            guard byte == 0x0A else { throw .malformed("chunk size line not ended by CRLF") }
            chunkLineBytes = 0
            guard digits > 0 else { throw .malformed("chunk size missing") }
            if value == 0 {
                state = .trailers
                trailerBytes = 0
                pending = []
            } else {
                guard value <= UInt64(maximumBodyBytes - body.count) else { throw .bodyTooLarge }
                state = .chunkData(remaining: Int(value))  // ≤ maximumBodyBytes, so an Int
            }
            return
        case _ where byte == 0x0D:
            state = .chunkSize(value: value, digits: digits, phase: .lineFeed)
        case .digits where Self.hexValue(byte) != nil:
            // 15 hex digits reach 2^60 - 1: more than any cap, and the shift cannot overflow.
            guard digits < 15 else { throw .bodyTooLarge }
            state = .chunkSize(value: value << 4 | UInt64(Self.hexValue(byte) ?? 0), digits: digits + 1, phase: .digits)
        case .digits where digits > 0 && (byte == 0x20 || byte == 0x09), .whitespace where byte == 0x20 || byte == 0x09:
            state = .chunkSize(value: value, digits: digits, phase: .whitespace)
        case .digits where digits > 0 && byte == UInt8(ascii: ";"), .whitespace where byte == UInt8(ascii: ";"):
            state = .chunkSize(value: value, digits: digits, phase: .extension)
        case .extension:
            guard byte == 0x09 || (byte >= 0x20 && byte != 0x7F) else {
                throw .malformed("control byte in a chunk extension")
            }
        case .digits, .whitespace:
            throw .malformed("chunk size is not hexadecimal")
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    // MARK: - Head

    private mutating func parseHead(_ head: [UInt8]) throws(Failure) {
        // The head ends with CRLF CRLF; each line ends with CRLF, and a bare CR or LF is refused.
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = 0
        var index = 0
        while index < head.count - 2 {
            if head[index] == 0x0D {
                guard head[index + 1] == 0x0A else { throw .malformed("bare CR in the response head") }
                lines.append(head[lineStart..<index])
                index += 2
                lineStart = index
            } else if head[index] == 0x0A {
                throw .malformed("bare LF in the response head")
            } else if head[index] == 0x00 {
                throw .malformed("NUL in the response head")
            } else {
                index += 1
            }
        }
        guard let statusLine = lines.first else { throw .malformed("empty response head") }
        let status = try Self.parseStatusLine(statusLine)
        // a digit: parseStatusLine checked it
        let minorVersion = Int(statusLine[statusLine.startIndex + 7] - UInt8(ascii: "0"))
        var fields: [HTTPHeader] = []
        for line in lines.dropFirst() {
            fields.append(try Self.parseField(line))
        }
        if (100..<200).contains(status) {
            guard status != 101 else { throw .malformed("the server switched protocols unasked (101)") }
            interimAnswers += 1
            guard interimAnswers <= Self.maximumInterimAnswers else {
                throw .malformed("more than \(Self.maximumInterimAnswers) interim (1xx) answers")
            }
            return  // interim answer: the final one follows
        }
        self.status = status
        self.minorVersion = minorVersion
        headers = fields
        try chooseFraming()
    }

    private static func parseStatusLine(_ line: ArraySlice<UInt8>) throws(Failure) -> Int {
        // HTTP-version SP 3DIGIT SP [reason] (RFC 9112 §4); a missing reason's SP is tolerated.
        let bytes = Array(line)
        guard bytes.count >= 12, bytes[0..<7].elementsEqual("HTTP/1.".utf8), bytes[7] >= UInt8(ascii: "0"),
            bytes[7] <= UInt8(ascii: "9"), bytes[8] == UInt8(ascii: " ")
        else { throw .malformed("not an HTTP/1.x status line") }
        var status = 0
        for byte in bytes[9..<12] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                throw .malformed("status code is not three digits")
            }
            status = status * 10 + Int(byte - UInt8(ascii: "0"))
        }
        guard status >= 100, bytes.count == 12 || bytes[12] == UInt8(ascii: " ") else {
            throw .malformed("status code out of range")
        }
        return status
    }

    private static func parseField(_ line: ArraySlice<UInt8>) throws(Failure) -> HTTPHeader {
        guard let first = line.first, first != 0x20, first != 0x09 else {
            throw .malformed("folded or empty field line")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
            throw .malformed("field line without a name and colon")
        }
        let name = line[line.startIndex..<colon]
        guard HTTPHeader.isFieldName(name) else { throw .malformed("field name is not a token") }
        // The value without the OWS around it (RFC 9112 §5), then HTTP's one rule for a value.
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == 0x20 || byte == 0x09 { value = value.dropFirst() }
        while let byte = value.last, byte == 0x20 || byte == 0x09 { value = value.dropLast() }
        guard HTTPHeader.isFieldValue(value) else { throw .malformed("control byte in a field value") }
        return HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    private mutating func chooseFraming() throws(Failure) {
        // A 2xx answer to CONNECT has no body: the tunnel starts after its head (RFC 9112 §6.3); the
        // body of a refusal is never read (the connection is closed), so its framing is not read either.
        if requestMethodIsHead || status == 204 || status == 304 || requestMethodIsConnect {
            state = .complete
            return
        }
        let codings = headers.filter { $0.hasName("transfer-encoding") }.flatMap { field in
            Array(field.value.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true).map(
                Self.trimmingASCIIWhitespace
            )
        }.filter { !$0.isEmpty }
        if !codings.isEmpty {
            state =
                codings.last.map { equalIgnoringASCIICase($0, "chunked".utf8) } == true
                ? .chunkSize(value: 0, digits: 0, phase: .digits) : .untilClose
            reserveForUnannouncedBody()
            return
        }
        let lengths = headers.filter { $0.hasName("content-length") }.flatMap {
            Array($0.value.utf8).split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        }
        guard !lengths.isEmpty else {
            state = .untilClose
            reserveForUnannouncedBody()
            return
        }
        var announced: UInt64?
        for text in lengths {
            let digits = Self.trimmingASCIIWhitespace(text)
            guard !digits.isEmpty, digits.count <= 19,
                digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else {
                throw .malformed("Content-Length is not a decimal number")
            }
            // ≤ 19 digits: below 10^19 < 2^64
            let value = digits.reduce(UInt64(0)) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
            guard announced == nil || announced == value else { throw .malformed("Content-Length values disagree") }
            announced = value
        }
        let length = announced ?? 0
        guard length <= UInt64(sinksBody ? maximumBodyBytes : bufferCap) else { throw .announcedTooLarge(length) }
        let count = Int(length)  // ≤ maximumBodyBytes, an Int
        if !sinksBody { body.reserveCapacity(Swift.min(count, Self.maximumReservation)) }  // count ≤ bufferCap here
        state = count == 0 ? .complete : .fixedLength(remaining: count)
    }
}

extension HTTP1ResponseParser {
    /// `bytes` without spaces and tabs around them.
    fileprivate static func trimmingASCIIWhitespace(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let byte = slice.first, byte == 0x20 || byte == 0x09 { slice = slice.dropFirst() }
        while let byte = slice.last, byte == 0x20 || byte == 0x09 { slice = slice.dropLast() }
        return slice
    }
}
