/** A new user's program on the module path: it compiles against io.jrnic.api alone (ModulePathTest). */
module jrnic.modulepath.app {
    requires io.jrnic.api;
}
