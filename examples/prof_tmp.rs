use std::time::Instant;
fn main() {
    let dir = std::path::Path::new(
        "/work/shared/fixtures/jp-conversations/17728322628-bear-mcp-server-design-review",
    );
    let bytes = std::fs::read(dir.join("events.json")).unwrap();
    let n = 300;
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(
            jp_inspect::core::load::parse(
                dir,
                jp_inspect::core::load::Files {
                    events: bytes.clone(),
                    base_config: None,
                    metadata: None,
                },
            )
            .unwrap(),
        );
    }
    println!("load::parse {:?}", t.elapsed() / n);
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(serde_json::from_slice::<serde_json::Value>(&bytes).unwrap());
    }
    println!("Value {:?}", t.elapsed() / n);
}
