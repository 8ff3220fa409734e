ᎻᎬᎪᎠ = "refs/heads/attacker"
