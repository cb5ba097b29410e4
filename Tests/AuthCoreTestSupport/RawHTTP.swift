import Foundation

/// One HTTP/1.1 exchange over a ``RawSocket`` from a chosen loopback address, for clients no HTTP
/// library would be (hostile ones): the request is written as given, the answer read until the
/// server closes (requests carry `Connection: close`).
public enum RawHTTP {
    /// What came back.
    public struct Answer: Sendable {
        /// The status, 0 when no status line came (the server closed without answering).
        public let status: Int
        /// Header lines as sent (`Name: value`).
        public let headers: [String]
        public let body: [UInt8]

        /// The value of the first header named `name` (ASCII case-insensitive).
        public func header(_ name: String) -> String? {
            let prefix = name.lowercased() + ":"
            return headers.first { $0.lowercased().hasPrefix(prefix) }.map {
                String($0.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
            }
        }
    }

    /// Sends `request` (bytes, as given) from `source` and reads the answer.
    public static func exchange(port: Int, from source: String = "127.0.0.1", _ request: [UInt8]) throws -> Answer {
        let socket = try RawSocket(port: port, from: source)
        defer { socket.close() }
        socket.write(request)
        return parse(socket.readAll(limit: 1 << 20))
    }

    /// A `POST` of JSON `body` to `path` with `Connection: close` (and `extra` header lines).
    public static func post(
        port: Int,
        from source: String = "127.0.0.1",
        _ path: String,
        json body: String,
        extra: [String] = []
    ) throws -> Answer {
        let head =
            ([
                "POST \(path) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Content-Type: application/json",
                "Content-Length: \(body.utf8.count)",
                "Connection: close",
            ] + extra).joined(separator: "\r\n")
        return try exchange(port: port, from: source, Array((head + "\r\n\r\n" + body).utf8))
    }

    /// The status line, headers and body of `bytes` (the body is what follows the head).
    public static func parse(_ bytes: [UInt8]) -> Answer {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<Swift.max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<($0 + 4)]) == separator })
        else {
            return Answer(status: 0, headers: [], body: [])
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        let status = parts.count >= 2 ? Int(parts[1]) ?? 0 : 0
        return Answer(status: status, headers: Array(lines.dropFirst()), body: Array(bytes[(end + 4)...]))
    }

    /// Runs `body` on a thread of its own (blocking socket calls must not hold a thread of the
    /// concurrency pool, which other suites' timers need) and returns its result.
    public static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
            }
        }
    }
}
