use rhai::{Dynamic, Engine, Scope, AST};
use std::io::{self, BufRead};

fn engine() -> Engine {
    let mut engine = Engine::new();
    engine.set_max_operations(1_000_000);
    engine.set_max_call_levels(64);
    engine.set_max_string_size(1_000_000);
    engine.set_max_array_size(100_000);
    engine.set_max_map_size(100_000);
    engine.on_print(|_| {});
    engine.on_debug(|_, _, _| {});
    engine
}

fn out(r: Result<Dynamic, Box<rhai::EvalAltResult>>) {
    match r {
        Ok(v) => {
            let j = serde_json::to_string(&v).unwrap_or_else(|_| "\"<unserializable>\"".into());
            println!("{{\"ok\":true,\"type\":{},\"value\":{}}}", serde_json::to_string(v.type_name()).unwrap(), j);
        }
        Err(e) => println!("{{\"ok\":false,\"error\":{}}}", serde_json::to_string(&e.to_string()).unwrap()),
    }
}

fn main() {
    let engine = engine();
    let stdin = io::stdin();
    for line in stdin.lock().lines() {
        let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Some(src) = v.as_str() {
                out(engine.eval::<Dynamic>(src));
            } else {
                let src = v["script"].as_str().unwrap();
                let name = v["fn"].as_str().unwrap();
                let ast: AST = match engine.compile(src) { Ok(a) => a, Err(e) => { println!("{{\"ok\":false,\"error\":{}}}", serde_json::to_string(&e.to_string()).unwrap()); return; } };
                let args: Vec<Dynamic> = v["args"].as_array().unwrap().iter().map(|a| rhai::serde::to_dynamic(a).unwrap()).collect();
                let mut scope = Scope::new();
                out(engine.call_fn::<Dynamic>(&mut scope, &ast, name, args));
            }
        }));
        if r.is_err() { println!("{{\"ok\":false,\"error\":\"PANIC\"}}"); }
    }
}
