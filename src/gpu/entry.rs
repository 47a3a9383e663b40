//! Every kernel the engine launches, typed: its WGSL family and its entry point's name there. A
//! misspelt entry point is then a compile error, not a pipeline failure on the first launch, and
//! the test below holds this list and the `@compute` functions of `shaders/` to each other.

use super::pipeline::Family;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryPoint {
    MatmulTiled,
    MatmulNaive,
    /// The generated subgroup matmuls: (A tiles, B tiles) of `kernels::matmul_subgroup::ENTRIES`.
    MatmulSubgroup128,
    MatmulSubgroup64,
    SoftmaxFwd,
    SoftmaxBwd,
    LnFwd,
    LnBwdDx,
    LnBwdParams,
    ActFwd,
    ActBwd,
    AddInto,
    Dropout,
    EmbedSum,
    Gather,
    ScatterAdd,
    Colsum,
    Sumsq,
    CeFwdBwd,
    Mse,
    AdamW,
}

impl EntryPoint {
    pub const ALL: [EntryPoint; 21] = {
        use EntryPoint::*;
        [
            MatmulTiled,
            MatmulNaive,
            MatmulSubgroup128,
            MatmulSubgroup64,
            SoftmaxFwd,
            SoftmaxBwd,
            LnFwd,
            LnBwdDx,
            LnBwdParams,
            ActFwd,
            ActBwd,
            AddInto,
            Dropout,
            EmbedSum,
            Gather,
            ScatterAdd,
            Colsum,
            Sumsq,
            CeFwdBwd,
            Mse,
            AdamW,
        ]
    };

    /// The file (or generated module) it is in, and its name there.
    pub fn at(self) -> (Family, &'static str) {
        use EntryPoint::*;
        match self {
            MatmulTiled => (Family::Matmul, "tiled"),
            MatmulNaive => (Family::Matmul, "naive"),
            MatmulSubgroup128 => (Family::MatmulSubgroup, "mm_sg128"),
            MatmulSubgroup64 => (Family::MatmulSubgroup, "mm_sg64"),
            SoftmaxFwd => (Family::Attention, "softmax_fwd"),
            SoftmaxBwd => (Family::Attention, "softmax_bwd"),
            LnFwd => (Family::LayerNorm, "ln_fwd"),
            LnBwdDx => (Family::LayerNorm, "ln_bwd_dx"),
            LnBwdParams => (Family::LayerNorm, "ln_bwd_params"),
            ActFwd => (Family::Elementwise, "act_fwd"),
            ActBwd => (Family::Elementwise, "act_bwd"),
            AddInto => (Family::Elementwise, "add_into"),
            Dropout => (Family::Elementwise, "dropout"),
            EmbedSum => (Family::Embedding, "embed_sum"),
            Gather => (Family::Embedding, "gather"),
            ScatterAdd => (Family::Embedding, "scatter_add"),
            Colsum => (Family::Reduce, "colsum"),
            Sumsq => (Family::Reduce, "sumsq"),
            CeFwdBwd => (Family::CrossEntropy, "ce_fwd_bwd"),
            Mse => (Family::CrossEntropy, "mse"),
            AdamW => (Family::AdamW, "adamw"),
        }
    }

    pub fn family(self) -> Family {
        self.at().0
    }

    pub fn name(self) -> &'static str {
        self.at().1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `@compute` functions of one source, in order.
    fn compute_fns(src: &str) -> Vec<String> {
        src.split("@compute")
            .skip(1)
            .filter_map(|rest| rest.split("fn ").nth(1).and_then(|f| f.split('(').next()).map(|n| n.trim().to_string()))
            .collect()
    }

    #[test]
    fn every_entry_point_is_in_its_source_and_every_compute_function_is_listed() {
        use std::collections::BTreeSet;
        let families: BTreeSet<String> = EntryPoint::ALL.iter().map(|e| format!("{:?}", e.family())).collect();
        assert_eq!(families.len(), 9, "every family has a kernel: {families:?}");
        for e in EntryPoint::ALL {
            let fns = compute_fns(e.family().source());
            assert!(fns.iter().any(|f| f == e.name()), "{e:?}: no @compute fn {} in {:?} ({fns:?})", e.name(), e.family());
        }
        for e in EntryPoint::ALL {
            for f in compute_fns(e.family().source()) {
                assert!(
                    EntryPoint::ALL.iter().any(|x| x.family() == e.family() && x.name() == f),
                    "{:?}'s @compute fn {f} has no EntryPoint",
                    e.family()
                );
            }
        }
        let subgroup: Vec<&str> = super::super::kernels::matmul_subgroup::ENTRIES.iter().map(|e| e.0).collect();
        assert_eq!(subgroup, [EntryPoint::MatmulSubgroup128.name(), EntryPoint::MatmulSubgroup64.name()]);
    }
}
