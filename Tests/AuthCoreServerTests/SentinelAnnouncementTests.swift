import AuthCore
import AuthCoreServer
import Testing

/// The `+switch-master` messages a sentinel publishes, read as the store's watcher reads them.
@Suite("Sentinel announcements: +switch-master read strictly")
struct SentinelAnnouncementTests {
    func message(_ payload: String, channel: String = "+switch-master", kind: String = "message") -> RedisReply {
        .array([.bytes(Array(kind.utf8)), .bytes(Array(channel.utf8)), .bytes(Array(payload.utf8))])
    }

    @Test(
        "a switch of our master gives the new address; another master's, another channel's or a malformed one gives nothing"
    )
    func announcements() {
        let read = { (reply: RedisReply) in SentinelWatcher.announcedMaster(reply, masterName: "authcore") }
        #expect(read(message("authcore 127.0.0.1 6379 127.0.0.2 6380")) == .init(host: "127.0.0.2", port: 6380))
        #expect(read(message("authcore ::1 6379 ::1 16380")) == .init(host: "::1", port: 16380))
        let refused = [
            message("other 127.0.0.1 6379 127.0.0.2 6380"),
            message("authcore-2 127.0.0.1 6379 127.0.0.2 6380"),
            message("authcore 127.0.0.1 6379 127.0.0.2 6380", channel: "+sdown"),
            message("authcore 127.0.0.1 6379 127.0.0.2 6380", kind: "subscribe"),
            message("authcore 127.0.0.1 6379 127.0.0.2"),
            message("authcore 127.0.0.1 6379 127.0.0.2 6380 extra"),
            message("authcore  127.0.0.1 6379 127.0.0.2 6380"),
            message("authcore 127.0.0.1 6379 127.0.0.2 0"),
            message("authcore 127.0.0.1 6379 127.0.0.2 65536"),
            message("authcore 127.0.0.1 6379 127.0.0.2 99999999999999999999"),
            message("authcore 127.0.0.1 6379 127.0.0.2 -1"),
            message("authcore 127.0.0.1 6379 \u{7F}host 6380"),
            message("authcore 127.0.0.1 6379 \(String(repeating: "h", count: 256)) 6380"),
            message("authcore 127.0.0.1 6379 127.0.0.2 6380" + String(repeating: " ", count: 1100)),
            .array([.bytes(Array("message".utf8)), .bytes(Array("+switch-master".utf8))]),
            .array([.bytes(Array("message".utf8)), .bytes(Array("+switch-master".utf8)), .integer(1)]),
            .bytes(Array("authcore 127.0.0.1 6379 127.0.0.2 6380".utf8)),
            .null,
        ]
        for reply in refused { #expect(read(reply) == nil, "\(reply)") }
    }
}
