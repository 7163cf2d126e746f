/// The version of footstepd and footstepctl (status, `--version`, reports).
public enum FootstepVersion {
    /// Semantic version of this build.
    public static let current = "0.8.0"
}
