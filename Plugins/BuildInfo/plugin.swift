import Foundation
import PackagePlugin

/// Writes `BuildInfo.swift` for the target it is applied to: the git commit the build is made
/// from, so that `jolt --version` can say it. Run before every build; the file is rewritten only
/// when the commit changes, so an unchanged tree rebuilds nothing.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let out = context.pluginWorkDirectoryURL.appending(path: "generated")
        let script = context.package.directoryURL.appending(path: "Plugins/BuildInfo/buildinfo.sh")
        return [
            .prebuildCommand(
                displayName: "Build information (git commit)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, context.package.directoryURL.path, out.path],
                outputFilesDirectory: out),
        ]
    }
}
