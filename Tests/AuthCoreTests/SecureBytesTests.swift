import Testing

@testable import AuthCore

/// A collection whose `count` says one byte while its iterator yields forty: a broken conformance
/// that must stop the program, never write past the buffer sized from `count`.
private struct BytesThatLieAboutTheirCount: Collection {
    var startIndex: Int { 0 }
    var endIndex: Int { 1 }
    func index(after index: Int) -> Int { index + 1 }
    subscript(index: Int) -> UInt8 { 0x41 }
    var count: Int { 1 }
    func makeIterator() -> IndexingIterator<[UInt8]> { [UInt8](repeating: 0x41, count: 40).makeIterator() }
}

@Suite("SecureBytes: one heap object, copy on write, bounded writes")
struct SecureBytesTests {
    @Test("copies share bytes until one is changed; the change stays in the copy")
    func copyOnWrite() {
        let original = SecureBytes([1, 2, 3])
        var copy = original
        copy.withUnsafeMutableBytes { $0[0] = 9 }
        copy.append(contentsOf: [4, 5])
        #expect(original.withUnsafeBytes { Array($0) } == [1, 2, 3])
        #expect(copy.withUnsafeBytes { Array($0) } == [9, 2, 3, 4, 5])
        #expect(original.count == 3 && copy.count == 5)
    }

    @Test("appends past the capacity move to a larger buffer and keep every byte, from any collection")
    func growth() {
        var bytes = SecureBytes(reservingCapacity: 2)
        #expect(bytes.isEmpty)
        var expected: [UInt8] = []
        for round in 0..<50 {
            let chunk = (0..<UInt8(round % 7 + 1)).map { $0 &+ UInt8(round) }
            if round.isMultiple(of: 2) {
                bytes.append(contentsOf: chunk)
            } else {
                bytes.append(contentsOf: chunk.lazy.map { $0 })  // not contiguous: byte by byte
            }
            expected += chunk
        }
        #expect(bytes.count == expected.count)
        #expect(bytes.withUnsafeBytes { Array($0) } == expected)
        #expect(bytes.prefix(5).withUnsafeBytes { Array($0) } == Array(expected.prefix(5)))
    }

    @Test("an empty buffer has a base address and no bytes; equality compares bytes")
    func emptyAndEquality() {
        let empty = SecureBytes()
        #expect(empty.count == 0)
        #expect(empty.withUnsafeBytes { $0.baseAddress != nil && $0.isEmpty })
        #expect(SecureBytes([7, 8]) == [UInt8]([7, 8]).withUnsafeBytes { SecureBytes(copying: $0) })
        #expect(SecureBytes([7, 8]) != SecureBytes([7, 9]))
        #expect(SecureBytes([7, 8]) != SecureBytes([7, 8, 0]))
        #expect(SecureBytes(count: 3) { $0[2] = 5 }.withUnsafeBytes { Array($0) } == [0, 0, 5])
    }

    @Test("a collection that yields more bytes than its count stops the program (init)")
    func lyingCollectionInit() async {
        await #expect(processExitsWith: .failure) {
            _ = SecureBytes(BytesThatLieAboutTheirCount())
        }
    }

    @Test("a collection that yields more bytes than its count stops the program (append)")
    func lyingCollectionAppend() async {
        await #expect(processExitsWith: .failure) {
            var bytes = SecureBytes([1])
            bytes.append(contentsOf: BytesThatLieAboutTheirCount())
        }
    }
}
