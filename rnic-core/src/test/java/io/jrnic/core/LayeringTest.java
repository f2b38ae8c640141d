package io.jrnic.core;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * rnic-core's layering, checked on the compiled classes (issue 10, docs/architecture.md "Inside
 * rnic-core"): no package cycle, and every package depends only on the packages below it. A new
 * edge upward fails the build here, naming the classes; notifications upward go through interfaces
 * the lower package owns.
 */
class LayeringTest {
    private static final String CORE = "io.jrnic.core";

    /** Each package and the rnic-core packages it may use (the rest of rnic-core is above it). */
    private static final Map<String, List<String>> ALLOWED = Map.of(
            "mem", List.of(),
            "wq", List.of("mem"),
            "link", List.of(),
            "engine", List.of("mem", "wq", "link"),
            "qp", List.of("mem", "wq", "link", "engine"),
            "transport", List.of("link"),
            "cm", List.of("mem", "wq", "link", "engine", "qp", "transport"));

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                // main classes only, wherever the build puts them (-Djrnic.target moves target/)
                .withImportOption(location -> !location.contains("/test-classes/"))
                .importPackages(CORE);
    }

    @Test
    void rnicCoreHasNoPackageCycle() {
        slices().matching(CORE + ".(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void everyPackageDependsOnlyOnThePackagesBelowIt() {
        for (Map.Entry<String, List<String>> layer : ALLOWED.entrySet()) {
            for (String other : ALLOWED.keySet()) {
                if (other.equals(layer.getKey()) || layer.getValue().contains(other)) {
                    continue;
                }
                ArchRule rule = noClasses().that().resideInAPackage(CORE + "." + layer.getKey() + "..")
                        .should().dependOnClassesThat().resideInAPackage(CORE + "." + other + "..")
                        .because(layer.getKey() + " sits below " + other + " (docs/architecture.md)");
                rule.check(classes);
            }
            noClasses().that().resideInAPackage(CORE + "." + layer.getKey() + "..")
                    .should().dependOnClassesThat().resideInAPackage(CORE)
                    .because("only SoftRnic, at the top, wires the layers together")
                    .check(classes);
        }
    }

    @Test
    void theProtocolModulesAndTheApiNeverSeeRnicCore() {
        noClasses().that().resideInAnyPackage("io.jrnic.mpa..", "io.jrnic.ddp..", "io.jrnic.rdmap..",
                        "io.jrnic.wire..", "io.jrnic.api..")
                .should().dependOnClassesThat().resideInAPackage(CORE + "..")
                .check(new ClassFileImporter().importPackages("io.jrnic.mpa", "io.jrnic.ddp", "io.jrnic.rdmap",
                        "io.jrnic.wire", "io.jrnic.api"));
    }
}
