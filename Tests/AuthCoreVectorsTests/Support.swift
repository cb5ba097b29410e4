import AuthCoreTestSupport
import Foundation

/// The repository's `vectors/` directory.
let vectorsDirectory = repositoryRoot.appendingPathComponent("vectors")
