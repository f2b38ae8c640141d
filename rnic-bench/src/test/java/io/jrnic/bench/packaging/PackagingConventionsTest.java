package io.jrnic.bench.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The POM rules that no compiler checks (docs/packaging.md): rnic-bom has no parent, so nothing
 * keeps its version and its artifact list in step with the build but this test; and slf4j-simple,
 * the CLI's logging binding, must stay out of every library's dependencies.
 */
class PackagingConventionsTest {

    /** The modules that are applications or POMs, not libraries: never listed in the BOM. */
    private static final List<String> NOT_PUBLISHED_AS_LIBRARIES = List.of("rnic-bench", "rnic-bom", "rnic-examples");

    private static final Path ROOT = Path.of(System.getProperty("basedir", "."))
            .toAbsolutePath().getParent();

    @Test
    void theBomPinsExactlyThePublishedModulesAtTheBuildsVersion() throws Exception {
        Document parent = parse(ROOT.resolve("pom.xml"));
        Document bom = parse(ROOT.resolve("rnic-bom/pom.xml"));

        assertThat(child(bom.getDocumentElement(), "parent"))
                .as("a BOM with a parent would import the parent's third-party pins too").isNull();
        String version = text(parent.getDocumentElement(), "version");
        assertThat(text(bom.getDocumentElement(), "version")).isEqualTo(version);

        List<String> libraries = new ArrayList<>();
        for (Element module : children(child(parent.getDocumentElement(), "modules"), "module")) {
            if (!NOT_PUBLISHED_AS_LIBRARIES.contains(module.getTextContent().trim())) {
                libraries.add(module.getTextContent().trim());
            }
        }
        List<String> pinned = new ArrayList<>();
        Element managed = child(child(bom.getDocumentElement(), "dependencyManagement"), "dependencies");
        for (Element dependency : children(managed, "dependency")) {
            assertThat(text(dependency, "groupId")).isEqualTo("io.jrnic");
            assertThat(text(dependency, "version")).isEqualTo("${project.version}");
            pinned.add(text(dependency, "artifactId"));
        }
        assertThat(pinned).containsExactlyInAnyOrderElementsOf(libraries);
    }

    @Test
    void onlyTheApplicationsDeclareTheLoggingBindingAndKeepItToThemselves() throws Exception {
        Document parent = parse(ROOT.resolve("pom.xml"));
        for (Element module : children(child(parent.getDocumentElement(), "modules"), "module")) {
            String name = module.getTextContent().trim();
            Document pom = parse(ROOT.resolve(name).resolve("pom.xml"));
            for (Element dependency : dependencies(pom)) {
                if (!"slf4j-simple".equals(text(dependency, "artifactId"))) {
                    continue;
                }
                // the CLI and the examples are applications; no library may bind a logging backend
                assertThat(name).as("slf4j-simple is declared by").isIn("rnic-bench", "rnic-examples");
                assertThat(text(dependency, "scope")).isEqualTo("runtime");
                assertThat(text(dependency, "optional")).isEqualTo("true");
            }
        }
    }

    @Test
    void nothingDependsOnTheCli() throws Exception {
        Document parent = parse(ROOT.resolve("pom.xml"));
        for (Element module : children(child(parent.getDocumentElement(), "modules"), "module")) {
            Document pom = parse(ROOT.resolve(module.getTextContent().trim()).resolve("pom.xml"));
            for (Element dependency : dependencies(pom)) {
                assertThat(text(dependency, "artifactId")).isNotEqualTo("rnic-bench");
            }
        }
    }

    private static List<Element> dependencies(Document pom) {
        Element dependencies = child(pom.getDocumentElement(), "dependencies");
        return dependencies == null ? List.of() : children(dependencies, "dependency");
    }

    private static Document parse(Path pom) throws Exception {
        assertThat(pom).exists();
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        try (var in = Files.newInputStream(pom)) {
            return factory.newDocumentBuilder().parse(in);
        }
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        return found.isEmpty() ? null : found.get(0);
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().trim();
    }
}
