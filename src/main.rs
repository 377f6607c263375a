fn main() {
    std::process::exit(jp_inspect::app::main());
}
