import AuthCore
internal import CAuthCoreHiredis

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Redis reply, as far as the store's commands need one.
package enum RedisReply: Sendable, Equatable {
    case bytes([UInt8])
    case integer(Int64)
    case status(String)
    case array([RedisReply])
    case null
    /// An error reply (`-READONLY …`, `-NOSCRIPT …`): its first 200 bytes.
    case error(String)
}

/// One hiredis connection (blocking, with a time limit on the connect and on each reply). Not
/// thread-safe: its owner (a ``RedisConnectionPool`` slot) uses it from one thread at a time.
///
/// Every argument goes with its length (binary-safe), and the copies handed to hiredis are wiped
/// (sealed states, passwords). An I/O failure is `transportFailure` (`timedOut` when the reply did
/// not come in time); after one the connection must be dropped.
final class RedisConnection {
    private let context: UnsafeMutablePointer<redisContext>
    let origin: String

    /// Connects to `host:port` and, when given, authenticates (`AUTH [user] password`, Redis 6
    /// ACLs with a user) and selects `database`.
    init(
        host: String,
        port: Int,
        timeout: Duration,
        username: String? = nil,
        password: SecureBytes? = nil,
        database: Int = 0
    ) throws(AuthCoreError) {
        origin = "Redis at \(host):\(port)"
        let (seconds, attoseconds) = Swift.max(timeout, .milliseconds(1)).components
        let limit = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        guard let raw = redisConnectWithTimeout(host, Int32(clamping: port), limit) else {
            throw AuthCoreError(.transportFailure, "\(origin): cannot allocate a connection")
        }
        guard authcore_redis_error_code(raw) == 0 else {
            let why = String(cString: authcore_redis_error_text(raw))
            redisFree(raw)
            throw AuthCoreError(.transportFailure, "\(origin): cannot connect: \(why)")
        }
        _ = redisSetTimeout(raw, limit)
        context = raw
        if let password {
            var secret = password.withUnsafeBytes { Array($0) }
            defer { secret.withUnsafeMutableBytes { wipeSecretMemory($0) } }
            let arguments = [Array("AUTH".utf8)] + (username.map { [Array($0.utf8)] } ?? []) + [secret]
            let reply = try send(arguments)
            guard reply == .status("OK") else {
                // Only the error's first word (WRONGPASS, NOPERM): the rest is the server's text.
                if case .error(let text) = reply {
                    throw AuthCoreError(.serviceError, "\(origin): AUTH refused: \(Self.errorWord(text))")
                }
                throw AuthCoreError(.malformedResponse, "\(origin): unexpected reply to AUTH")
            }
        }
        if database != 0 {
            let reply = try send([Array("SELECT".utf8), Array(String(database).utf8)])
            guard reply == .status("OK") else {
                throw AuthCoreError(.serviceError, "\(origin): SELECT \(database) refused")
            }
        }
    }

    deinit { redisFree(context) }

    /// An error reply's first word (`WRONGPASS`, `NOPERM`, `READONLY`, `ERR`): what a message may
    /// repeat of a server's text (the rest can echo a command's arguments, and a hostile server can
    /// write anything there). At most 32 bytes of `A-Z`, `0-9`, `_`, `-`.
    static func errorWord(_ text: String) -> String {
        let word = text.utf8.prefix { $0 != 0x20 }.prefix(32)
        guard !word.isEmpty,
            word.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D })
        else {
            return "an error"
        }
        return String(decoding: word, as: UTF8.self)
    }

    /// Sends one command and reads its reply.
    func send(_ arguments: [[UInt8]]) throws(AuthCoreError) -> RedisReply {
        try pipeline([arguments])[0]
    }

    /// Sends the commands in one write and reads their replies, in order: one round trip.
    func pipeline(_ commands: [[[UInt8]]]) throws(AuthCoreError) -> [RedisReply] {
        for arguments in commands {
            // redisAppendCommandArgv formats the command into hiredis's output buffer (a copy); the
            // argument copies made here are wiped at once.
            let status = Self.withArgv(arguments) { count, argv, lengths in
                redisAppendCommandArgv(context, count, argv, lengths)
            }
            guard status == REDIS_OK else {
                throw AuthCoreError(.transportFailure, "\(origin): cannot queue a command")
            }
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var pointer: UnsafeMutableRawPointer?
            let status = redisGetReply(context, &pointer)
            let failureErrno = errno  // read at once: later calls may change it
            guard status == REDIS_OK, let pointer else {
                let why = String(cString: authcore_redis_error_text(context))
                let timedOut =
                    authcore_redis_error_code(context) == REDIS_ERR_IO
                    && (failureErrno == EAGAIN || failureErrno == EWOULDBLOCK)
                throw AuthCoreError(
                    timedOut ? .timedOut : .transportFailure,
                    "\(origin): \(timedOut ? "no reply in time" : why)"
                )
            }
            let reply = pointer.assumingMemoryBound(to: redisReply.self)
            defer { freeReplyObject(reply) }
            replies.append(try Self.reply(reply.pointee, from: origin))
        }
        return replies
    }

    /// Turns TCP keep-alive on (a connection that mostly waits notices a peer that vanished).
    func enableKeepAlive() { _ = redisEnableKeepAlive(context) }

    /// The connection's socket, for `poll(2)` (``readAvailable()`` once it is readable).
    var fileDescriptor: Int32 { context.pointee.fd }

    /// The next reply hiredis has already read, nil when none is complete yet: never blocks (a
    /// subscription's messages).
    func bufferedReply() throws(AuthCoreError) -> RedisReply? {
        var pointer: UnsafeMutableRawPointer?
        guard redisGetReplyFromReader(context, &pointer) == REDIS_OK else {
            throw AuthCoreError(.malformedResponse, "\(origin): \(String(cString: authcore_redis_error_text(context)))")
        }
        guard let pointer else { return nil }
        let reply = pointer.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(reply) }
        return try Self.reply(reply.pointee, from: origin)
    }

    /// Reads what the socket holds into hiredis's buffer (when `poll(2)` says it is readable; a
    /// closed connection is `transportFailure`).
    func readAvailable() throws(AuthCoreError) {
        guard redisBufferRead(context) == REDIS_OK else {
            throw AuthCoreError(.transportFailure, "\(origin): \(String(cString: authcore_redis_error_text(context)))")
        }
    }

    /// `arguments` as hiredis's argv and lengths, in copies wiped after `body`.
    private static func withArgv<R>(
        _ arguments: [[UInt8]],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> R
    ) -> R {
        let pointers = arguments.map { argument -> UnsafeMutablePointer<CChar> in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: Swift.max(1, argument.count))
            argument.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress {
                    UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: bytes.count)
                }
            }
            return copy
        }
        defer {
            for (pointer, argument) in zip(pointers, arguments) {
                wipeSecretMemory(
                    UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(pointer), count: argument.count)
                )
                pointer.deallocate()
            }
        }
        var argv = pointers.map { UnsafePointer<CChar>($0) as UnsafePointer<CChar>? }
        let lengths = arguments.map(\.count)
        return body(Int32(arguments.count), &argv, lengths)
    }

    /// A hiredis reply as a ``RedisReply`` (arrays one level deep: `MGET`'s, `ROLE`'s first members).
    private static func reply(
        _ value: redisReply,
        from origin: String,
        nested: Bool = false
    ) throws(AuthCoreError) -> RedisReply {
        switch value.type {
        case REDIS_REPLY_STRING:
            return .bytes(value.len == 0 ? [] : Array(UnsafeRawBufferPointer(start: value.str, count: value.len)))
        case REDIS_REPLY_INTEGER:
            return .integer(value.integer)
        case REDIS_REPLY_STATUS:
            return .status(String(decoding: UnsafeRawBufferPointer(start: value.str, count: value.len), as: UTF8.self))
        case REDIS_REPLY_NIL:
            return .null
        case REDIS_REPLY_ERROR:
            return .error(
                String(
                    decoding: UnsafeRawBufferPointer(start: value.str, count: Swift.min(value.len, 200)),
                    as: UTF8.self
                )
            )
        case REDIS_REPLY_ARRAY:
            guard value.elements == 0 || value.element != nil else {
                throw AuthCoreError(.malformedResponse, "\(origin): an array reply without elements")
            }
            var elements: [RedisReply] = []
            for index in 0..<value.elements {
                guard let element = value.element[index] else {
                    throw AuthCoreError(.malformedResponse, "\(origin): an array reply with a missing element")
                }
                // Deeper arrays (ROLE's replica list) are not read: an empty array stands for them.
                elements.append(
                    nested && element.pointee.type == REDIS_REPLY_ARRAY
                        ? .array([]) : try reply(element.pointee, from: origin, nested: true)
                )
            }
            return .array(elements)
        default:
            throw AuthCoreError(.malformedResponse, "\(origin): reply of type \(value.type)")
        }
    }
}
