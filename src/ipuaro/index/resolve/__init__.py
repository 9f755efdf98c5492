"""Import resolution: a specifier in a file -> the project file it means (tsconfig paths,
package manifests, per-language rules).
"""
