//! Learning rate: linear warmup from 0, then linear decay to 0 at the last step, as
//! `transformers.get_linear_schedule_with_warmup` (the lr of step k, counting from 0).

#[derive(Clone, Copy, Debug)]
pub struct LinearSchedule {
    pub base_lr: f64,
    pub warmup: usize,
    pub total: usize,
}

impl LinearSchedule {
    pub fn lr(&self, step: usize) -> f64 {
        let f = if step < self.warmup {
            step as f64 / self.warmup.max(1) as f64
        } else {
            (self.total.saturating_sub(step)) as f64 / (self.total.saturating_sub(self.warmup)).max(1) as f64
        };
        self.base_lr * f.max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warmup_then_decay() {
        let s = LinearSchedule { base_lr: 1.0, warmup: 3, total: 10 };
        let lrs: Vec<f64> = (0..11).map(|k| s.lr(k)).collect();
        let want = [0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0, 6.0 / 7.0, 5.0 / 7.0, 4.0 / 7.0, 3.0 / 7.0, 2.0 / 7.0, 1.0 / 7.0, 0.0];
        for (a, b) in lrs.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{lrs:?}");
        }
    }
}
