"""Bug reproductions: each a few lines over a reference codec, doing what the buggy code did.

A bug case (cases/bugs/<project>-<number>.yaml) names its reproduction as `module:object`;
`conformance reproduce BUG-ID` replays the bug's scenario through it.
"""
