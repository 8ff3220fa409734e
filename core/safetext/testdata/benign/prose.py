# Привет! Эта сеть работает быстро, а также с помощью кэша.
# Он рос в деревне.
# Η αλφάβητος: αβγ, ο κόσμος είναι μεγάλος.
# 漢字とひらがなとカタカナ。Goのテストを書く。
# Die Größe der Datei wird geprüft, bevor sie gelöscht wird.
# L'été dernier, le café était naïf et très français.
# Le cœur du problème.
# Vi skal være der.
# 한국어 문장은 띄어쓰기를 합니다.


def greet():
    return "Привет, мир"
