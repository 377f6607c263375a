fn main() {
    std::process::exit(jp_inspect::cli::main());
}
