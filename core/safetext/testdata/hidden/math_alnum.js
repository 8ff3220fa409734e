const { exec: 𝐞𝐱𝐞𝐜 } = require("child_process");
𝐞𝐱𝐞𝐜(process.argv[2]);
