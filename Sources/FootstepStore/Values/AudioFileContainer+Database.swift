import FootstepCore
import GRDB

extension AudioFileContainer: DatabaseValueConvertible {}
