; Savings balance with monthly compounding at annual rate r and a fixed monthly deposit, 120 months
(do ((month 0 (+ month 1))
     (balance B0 (+ (* balance (+ 1 (/ r 12))) deposit)))
    ((= month 120) balance))
