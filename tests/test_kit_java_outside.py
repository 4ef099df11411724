"""The Java kit as a Maven artifact: a harness in another project depends on conformance.harness:kit:1.0.0."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

from kits_outside import OUTSIDE, identity, outcomes
from toolchains import require

from conformance.corpus.loading import Corpus

HARNESS = OUTSIDE / "java"
JAR = HARNESS / "target" / "example-harness.jar"
require("mvn", JAR, "harnesses/examples/build java", unit="kit-java-outside")
KIT_JAR = HARNESS / "target" / "lib" / "kit-1.0.0.jar"


def test_a_harness_in_another_project_passes_with_the_installed_kit(corpus: Corpus) -> None:
    assert "<artifactId>kit</artifactId>" in (HARNESS / "pom.xml").read_text() and KIT_JAR.is_file()
    assert set(outcomes(f"java -jar {JAR}", corpus).values()) == {"pass"}
    assert "conformance.harness:kit 1.0.0" in str(identity(f"java -jar {JAR}")["libraries"])


def test_call_tool_needs_no_checked_exception_handling(tmp_path: Path) -> None:
    # A tool lambda of a library's interface (a Function<String, String>) calls the kit directly.
    source = tmp_path / "Lambda.java"
    source.write_text(
        "import conformance.kit.Case;\nimport java.util.function.Function;\n"
        'class Lambda { Function<String, String> tool(Case c) { return args -> c.callTool("t", args, null); } }\n'
    )
    javac = ["javac", "-cp", str(KIT_JAR), "-d", str(tmp_path), str(source)]
    done = subprocess.run(javac, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_versions_reads_a_jar_s_manifest_where_it_has_no_pom_properties(tmp_path: Path) -> None:
    # Jars built with Gradle (many SDKs) carry Implementation-Version in their manifest and no pom.properties.
    library = tmp_path / "gradle-built-sdk-4.2.0.jar"
    with zipfile.ZipFile(library, "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nImplementation-Version: 4.2.0\r\n\r\n")
    named_only = tmp_path / "unversioned-sdk-1.5.jar"
    with zipfile.ZipFile(named_only, "w") as jar:
        jar.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n\r\n")
    probe = tmp_path / "Probe.java"
    probe.write_text(
        "import conformance.kit.Versions;\nclass Probe { public static void main(String[] a) {\n"
        '  System.out.println(Versions.of("com.example", "gradle-built-sdk") + " " + Versions.of("com.example", '
        '"unversioned-sdk") + " " + Versions.of("com.example", "absent")); } }\n'
    )
    subprocess.run(["javac", "-cp", str(KIT_JAR), "-d", str(tmp_path), str(probe)], check=True)
    classpath = ":".join([str(KIT_JAR), str(library), str(named_only), str(tmp_path)])
    done = subprocess.run(["java", "-cp", classpath, "Probe"], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["4.2.0", "1.5", "unknown"]
