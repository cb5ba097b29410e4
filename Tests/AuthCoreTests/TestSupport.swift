import AuthCore
import AuthCoreTestSupport
import Testing

func hex(_ text: String) -> [UInt8] {
    (try? Hex.decode(text, allowEmpty: true)) ?? []
}

/// Runs `body` and returns the AuthCoreError code it throws (nil if it does not throw).
func errorCode<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> AuthCoreError.Code? {
    do {
        _ = try body()
        return nil
    } catch let error as AuthCoreError {
        return error.code
    } catch {
        Issue.record("expected an AuthCoreError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
